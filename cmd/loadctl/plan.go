package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

type planFlags struct {
	workerConcurrency int
	runnerLimits      intList
	serviceTime       time.Duration
	jobTime           time.Duration
	taskTime          time.Duration
	vus               intList
	varyRunnerLimit   intList
	targetRPS         float64
	maxPerRunner      int
	breaking          float64
	cpu               demandList
	cores             float64
	processCores      float64
	latency           time.Duration
	json              bool
}

func newPlanFlagSet(f *planFlags, stderr io.Writer) *flag.FlagSet {
	fs := newFlagSet("plan", stderr)
	fs.IntVar(&f.workerConcurrency, "worker-concurrency", 0, "worker --concurrency (n8n's default is 10)")
	fs.Var(&f.runnerLimits, "runner-limit", "N8N_RUNNERS_MAX_CONCURRENCY of each runner on the worker, comma list (e.g. 10,10)")
	fs.DurationVar(&f.serviceTime, "service-time", 0, "time one execution holds a slot, e.g. 3s (sets both stages)")
	fs.DurationVar(&f.jobTime, "job-time", 0, "worker stage only: time a job holds a worker slot (overrides --service-time)")
	fs.DurationVar(&f.taskTime, "task-time", 0, "runner stage only: time a task holds a runner slot (overrides --service-time)")
	fs.Var(&f.vus, "vus", "closed-loop VU counts to predict, comma list")
	fs.Var(&f.varyRunnerLimit, "vary-runner-limit", "print the ceiling for each of these single-runner limits (the seed's isolation table)")
	fs.Float64Var(&f.targetRPS, "target-rps", 0, "print the worker/runner pairs needed for this many executions per second")
	fs.IntVar(&f.maxPerRunner, "max-runner-limit", 10, "with --target-rps: most tasks one runner may run (its memory sets this)")
	fs.Float64Var(&f.breaking, "breaking-point", 0, "a measured breaking point (VUs or req/s); prints the 2/3 operating point")
	fs.Var(&f.cpu, "cpu", "CPU seconds per execution by process, comma list, e.g. main=12ms,worker=9ms,runner=3ms,other=10ms: each process but other is a resource of --process-cores, and the host's cores carry their sum")
	fs.Float64Var(&f.cores, "cores", 0, "with --cpu: the host's online CPUs (required with --cpu)")
	fs.Float64Var(&f.processCores, "process-cores", capacity.DefaultProcessCores, "with --cpu: the CPU one n8n process can use, in cores (one Node thread; 0.94 measured on a 2-core lab)")
	fs.DurationVar(&f.latency, "latency", 0, "latency of one request alone, for the MVA curve (default: the longest hold of any resource)")
	fs.BoolVar(&f.json, "json", false, "print JSON instead of a table")
	return fs
}

func runPlan(args []string, stdout, stderr io.Writer) int {
	var f planFlags
	fs := newPlanFlagSet(&f, stderr)
	if code, ok := parseArgs(fs, args, false, stderr); !ok {
		return code
	}
	res, err := buildPlan(f)
	if err != nil {
		fmt.Fprintf(stderr, "loadctl plan: %v\n", err)
		return exitUsage
	}
	if f.json {
		if err := loadgen.WriteIndentedJSON(stdout, res); err != nil {
			fmt.Fprintf(stderr, "loadctl plan: %v\n", err)
			return exitError
		}
		return exitOK
	}
	writePlanText(stdout, res)
	return exitOK
}

// service resolves the flags into the model's two stages.
func (f planFlags) service() (capacity.ServiceTime, error) {
	for name, d := range map[string]time.Duration{"--service-time": f.serviceTime, "--job-time": f.jobTime, "--task-time": f.taskTime} {
		if d < 0 {
			return capacity.ServiceTime{}, fmt.Errorf("%s must be positive, got %v", name, d)
		}
	}
	s := capacity.Single(f.serviceTime)
	if f.jobTime > 0 {
		s.Job = f.jobTime
	}
	if f.taskTime > 0 {
		s.Task = f.taskTime
	}
	if (s.Job > 0) != (s.Task > 0) {
		return s, errors.New("--job-time and --task-time need each other, or --service-time")
	}
	return s, nil
}

func buildPlan(f planFlags) (planResult, error) {
	svc, err := f.service()
	if err != nil {
		return planResult{}, err
	}
	if f.workerConcurrency == 0 && f.targetRPS == 0 && f.breaking == 0 && len(f.cpu) == 0 {
		return planResult{}, errors.New("--worker-concurrency is required (or --cpu, --target-rps, or --breaking-point)")
	}
	res := planResult{}
	if f.workerConcurrency != 0 || len(f.runnerLimits) > 0 || len(f.varyRunnerLimit) > 0 || (len(f.vus) > 0 && len(f.cpu) == 0) {
		if err := res.addCluster(f, svc); err != nil {
			return planResult{}, err
		}
	}
	if f.targetRPS != 0 {
		if f.maxPerRunner <= 0 {
			return planResult{}, fmt.Errorf("--max-runner-limit must be positive, got %d", f.maxPerRunner)
		}
		if !svc.Known() {
			return planResult{}, errors.New("--target-rps needs --service-time")
		}
		sz, err := capacity.SizeFor(f.targetRPS, svc, f.maxPerRunner)
		if err != nil {
			return planResult{}, fmt.Errorf("--target-rps: %w", err)
		}
		res.Sizing = newSizingJSON(sz, f.maxPerRunner)
	}
	if f.breaking != 0 {
		op, err := capacity.OperatingPoint(f.breaking)
		if err != nil {
			return planResult{}, fmt.Errorf("--breaking-point: %w", err)
		}
		res.Operating = &operatingJSON{BreakingPoint: f.breaking, OperatingPoint: op}
	}
	if len(f.cpu) > 0 || f.cores != 0 || f.latency != 0 {
		if err := res.addBounds(f, svc); err != nil {
			return planResult{}, err
		}
	}
	return res, nil
}

func (res *planResult) addCluster(f planFlags, svc capacity.ServiceTime) error {
	if f.workerConcurrency <= 0 {
		return fmt.Errorf("--worker-concurrency must be positive, got %d", f.workerConcurrency)
	}
	limits := f.runnerLimits
	if len(limits) == 0 && len(f.varyRunnerLimit) == 0 {
		return errors.New("--runner-limit is required (n8n's default is 10)")
	}
	if len(limits) > 0 {
		v, err := capacity.Evaluate(oneWorkerCluster(f.workerConcurrency, limits, svc))
		if err != nil {
			return err
		}
		res.Cluster = newClusterJSON(v, limits)
		for _, n := range f.vus {
			if !svc.Known() && len(f.cpu) > 0 {
				break // the MVA curve covers --vus from the CPU demands
			}
			if !svc.Known() {
				return errors.New("--vus needs --service-time")
			}
			p, err := capacity.PredictClosedLoop(v, n)
			if err != nil {
				return fmt.Errorf("--vus: %w", err)
			}
			res.Predictions = append(res.Predictions, newPredictionJSON(p))
		}
	}
	for _, l := range f.varyRunnerLimit {
		v, err := capacity.Evaluate(oneWorkerCluster(f.workerConcurrency, intList{l}, svc))
		if err != nil {
			return fmt.Errorf("--vary-runner-limit: %w", err)
		}
		res.Variations = append(res.Variations, newClusterJSON(v, intList{l}))
	}
	return nil
}

func oneWorkerCluster(conc int, limits intList, svc capacity.ServiceTime) capacity.Cluster {
	w := capacity.Worker{Name: "worker", Concurrency: conc}
	for i, l := range limits {
		w.Runners = append(w.Runners, capacity.Runner{Name: fmt.Sprintf("runner-%d", i+1), Limit: l})
	}
	return capacity.Cluster{Workers: []capacity.Worker{w}, Service: svc}
}
