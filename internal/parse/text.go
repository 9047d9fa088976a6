package parse

import (
	"strings"

	"github.com/pakton/pakton/internal/document"
)

// parseText is a first version: UTF-8 only.
func parseText(data []byte) (*document.Document, error) {
	return &document.Document{Format: "text", Text: strings.ToValidUTF8(string(data), "\uFFFD")}, nil
}
