package parse

import (
	"fmt"

	"github.com/pakton/pakton/internal/document"
)

// parseDOCX is a placeholder until the zip/XML parser lands.
func parseDOCX(data []byte) (*document.Document, error) {
	return nil, fmt.Errorf("%w: docx parser not implemented yet", ErrUnsupported)
}
