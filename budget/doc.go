// Package budget measures what a retry policy buys under a fault
// environment: it runs many one-request turns in the deterministic world
// with failures drawn from the environment, checks each with the oracle,
// and reports exhaustion with its confidence interval, attempts per turn,
// virtual time spent in recovery and request amplification, beside the
// bounds that follow from the policy alone.
package budget
