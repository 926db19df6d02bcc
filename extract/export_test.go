package extract

// SetBeforeOpen installs the hook that runs between the listing of a file
// and its open (nil removes it). Tests only.
func SetBeforeOpen(f func(rel string)) { beforeOpen = f }

// SetReviewScanMin sets the number of documents from which r's finish
// scans its tenant's open review reasons (0: the default). Tests only.
func SetReviewScanMin(r *Runner, n int) { r.scanMin = n }

// SetKeyChunk sets how many job keys per tenant r holds in memory before
// it spills them to a file (0: the default). Tests only.
func SetKeyChunk(r *Runner, n int) { r.keys.chunk = n }
