package loadgen

// Outcome classifies one request. The order is the reading order of a
// report: pass first, then the error kinds.
type Outcome uint8

// The outcomes, in reading order.
const (
	OutcomePass       Outcome = iota
	OutcomeStatus             // unexpected HTTP status
	OutcomeTimeout            // client timeout while sending or reading
	OutcomeConnection         // dial, reset or other transport error
	OutcomeCheck              // status fine, body check failed
	OutcomeDropped            // open loop: no in-flight slot at the intended start
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"pass", "status", "timeout", "connection", "check", "dropped"}

func (o Outcome) String() string {
	if o < numOutcomes {
		return outcomeNames[o]
	}
	return "unknown"
}

// ErrorKinds lists the failing outcomes in report order.
func ErrorKinds() []Outcome {
	return []Outcome{OutcomeStatus, OutcomeTimeout, OutcomeConnection, OutcomeCheck, OutcomeDropped}
}

// Outcomes lists every outcome in report order.
func Outcomes() []Outcome {
	return append([]Outcome{OutcomePass}, ErrorKinds()...)
}
