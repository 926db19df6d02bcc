// Package extract is invx's pipeline: discover files, normalise and key each
// document, enqueue, lease, call a Provider with no transaction open,
// validate strictly and commit through the fenced store contract. It also
// holds the Provider interface, the retry policy and the run summary.
//
// extract never imports a store driver or a vendor SDK: cmd wires those in.
package extract
