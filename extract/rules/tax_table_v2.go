package rules

import "github.com/invx/invx/schema"

// readTaxTable reads a tax summary table ("Steuersatz  Netto  Steuer").
func (d *document) readTaxTable(exp int) []schema.TaxLine { return nil }
