package extract

// SetBeforeOpen installs the hook that runs between the listing of a file
// and its open (nil removes it). Tests only.
func SetBeforeOpen(f func(rel string)) { beforeOpen = f }

// SetReviewScanMin sets the number of documents from which r's finish
// scans its tenant's open review reasons (0: the default). Tests only.
func SetReviewScanMin(r *Runner, n int) { r.scanMin = n }
