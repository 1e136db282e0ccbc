package capacity

import "math"

// BindingTolerance is the relative gap within which two ceilings tie: a
// resource binds when its ceiling is at most min × (1 + BindingTolerance).
// It absorbs float rounding (the slot resources of two saturated workers
// give the same ceiling by different sums), not measurement noise.
const BindingTolerance = 1e-9

// ResourceBound is one resource with its ceiling.
type ResourceBound struct {
	Resource
	Ceiling float64 // m/D executions per second; 0 when the demand is unknown
	Binding bool    // the ceiling is the cluster's (within BindingTolerance)
}

// Bounds is the asymptotic bound over all resources: the cluster completes
// at most min_k m_k/D_k executions per second (Denning & Buzen's operational
// laws; Lazowska et al., Quantitative System Performance, ch. 5).
type Bounds struct {
	// Resources holds the slot resources, then the CPU ones, each in the
	// order given.
	Resources []ResourceBound
	// Ceiling is the smallest finite ceiling over resources with a known
	// demand; 0 when there is none. An unknown demand leaves its resource
	// out, so without CPU demands this is the slot bound.
	Ceiling float64
	// Binding names every resource whose ceiling ties the minimum, in
	// Resources order: slots before CPU, and per worker its worker slots
	// before its runner slots. Binding[0] is the one to report.
	Binding []string
	// SlotCeiling is the same minimum over the slot resources alone:
	// what the slots would allow if no CPU bound.
	SlotCeiling float64
}

// HasCeiling reports whether some resource with a known demand bounds the
// cluster.
func (b Bounds) HasCeiling() bool { return b.Ceiling > 0 }

// Bottleneck is the binding resource to report, or "" when none is known.
func (b Bounds) Bottleneck() string {
	if len(b.Binding) == 0 {
		return ""
	}
	return b.Binding[0]
}

// Resource is the resource named name, if there is one.
func (b Bounds) Resource(name string) (ResourceBound, bool) {
	for _, r := range b.Resources {
		if r.Name == name {
			return r, true
		}
	}
	return ResourceBound{}, false
}

// Unknown lists the resources whose demand is unknown, in Resources order.
func (b Bounds) Unknown() []string {
	var out []string
	for _, r := range b.Resources {
		if !r.Known() {
			out = append(out, r.Name)
		}
	}
	return out
}

// Combine checks the slot and CPU resources and bounds the cluster by them.
// Names must be unique and each list must hold its own kind.
func Combine(slots, cpu []Resource) (Bounds, error) {
	all := make([]Resource, 0, len(slots)+len(cpu))
	all = append(all, slots...)
	all = append(all, cpu...)
	if err := validateResources(all, len(slots)); err != nil {
		return Bounds{}, err
	}
	b := Bounds{Resources: make([]ResourceBound, len(all))}
	for i, r := range all {
		b.Resources[i] = ResourceBound{Resource: r, Ceiling: r.Ceiling()}
	}
	b.Ceiling = minCeiling(b.Resources, func(ResourceKind) bool { return true })
	b.SlotCeiling = minCeiling(b.Resources, func(k ResourceKind) bool { return k == KindSlots })
	b.markBinding()
	return b, nil
}

func validateResources(all []Resource, nSlots int) error {
	seen := make(map[string]bool, len(all))
	for i, r := range all {
		if err := r.Validate(); err != nil {
			return err
		}
		want := KindCPU
		if i < nSlots {
			want = KindSlots
		}
		if r.Kind != want {
			return invalid("resource %s: kind %s in the %s list", r.Name, r.Kind, want)
		}
		if seen[r.Name] {
			return invalid("resource %s: named twice", r.Name)
		}
		seen[r.Name] = true
	}
	return nil
}

// minCeiling is the smallest finite positive ceiling over the resources
// whose kind is kept; 0 when there is none.
func minCeiling(rs []ResourceBound, keep func(ResourceKind) bool) float64 {
	low := math.Inf(1)
	for _, r := range rs {
		if keep(r.Kind) && r.Ceiling > 0 && r.Ceiling < low {
			low = r.Ceiling
		}
	}
	if math.IsInf(low, 1) {
		return 0
	}
	return low
}

func (b *Bounds) markBinding() {
	if b.Ceiling == 0 {
		return
	}
	limit := b.Ceiling * (1 + BindingTolerance)
	for i := range b.Resources {
		r := &b.Resources[i]
		if r.Ceiling > 0 && r.Ceiling <= limit {
			r.Binding = true
			b.Binding = append(b.Binding, r.Name)
		}
	}
}
