package parse

import (
	"fmt"

	"github.com/pakton/pakton/internal/document"
)

// parseHTML is a placeholder until the tokenizer-based parser lands.
func parseHTML(data []byte) (*document.Document, error) {
	return nil, fmt.Errorf("%w: html parser not implemented yet", ErrUnsupported)
}
