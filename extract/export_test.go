package extract

// SetBeforeOpen installs the hook that runs between the listing of a file
// and its open (nil removes it). Tests only.
func SetBeforeOpen(f func(rel string)) { beforeOpen = f }
