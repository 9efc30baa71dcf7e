// Package judge runs a plan on the system under test and holds its log to
// the oracle: [Check] runs one scenario, checked strictly and with the
// run's facts (beside the model too, under --sut both, and with a view
// checker's code when one is given), and sets apart what a recorded
// finding explains; [RunSeed] draws a seed's plan (package faults) and
// judges it, twice when the seed is in the determinism sample; [Principal]
// names a failure by the violation that says what went wrong.
//
// It is what a run of one plan needs and no more, so that budget,
// explore and baseline check their runs as a campaign does without taking
// in the campaign's machinery: shrinking a failure, the corpus and the
// coverage counts are package campaign's.
package judge
