package pdftext

import (
	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// pageText lays out page i (0-based). PDFium gives "rects": runs of text on
// one line in one font, with boxes in PDF space (Y grows upwards), so the
// bottom edge, negated, is the run's place from the top.
func pageText(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, i int) (string, error) {
	res, err := inst.GetPageTextStructured(&requests.GetPageTextStructured{
		Page:                   requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: i}},
		Mode:                   requests.GetPageTextStructuredModeRects,
		CollectFontInformation: true,
	})
	if err != nil {
		return "", err
	}
	spans := make([]span, 0, len(res.Rects))
	for _, r := range res.Rects {
		if r == nil {
			continue
		}
		p := r.PointPosition
		size := p.Top - p.Bottom
		if r.FontInformation != nil && r.FontInformation.Size > 0 {
			size = r.FontInformation.Size
		}
		spans = append(spans, span{X0: p.Left, X1: p.Right, Y: -p.Bottom, Size: size, S: r.Text})
	}
	return layoutPage(spans), nil
}
