package names_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// reviewDevFile is CUAD's review_dev.json as the tests of this package read
// it: each contract's file path and its labels.
type reviewDevFile struct {
	Documents []struct {
		FilePath string `json:"file_path"`
		Labels   []struct {
			Provision string `json:"provision"`
			Present   bool   `json:"present"`
			Answer    string `json:"answer"`
		} `json:"labels"`
	} `json:"documents"`
}

// reviewDev reads ../shared/data's CUAD review labels and returns the data
// directory with them; the test is skipped when the data is absent.
func reviewDev(t *testing.T) (string, reviewDevFile) {
	t.Helper()
	root := filepath.Join("..", "..", "..", "shared", "data")
	var bench reviewDevFile
	b, err := os.ReadFile(filepath.Join(root, "cuad", "review_dev.json"))
	if err != nil {
		t.Skip("../shared/data not present")
	}
	if err := json.Unmarshal(b, &bench); err != nil {
		t.Fatal(err)
	}
	return root, bench
}
