package llm_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/llm"
)

// clearEnv unsets every PAKTON_LLM_* variable for the test.
func clearEnv(t *testing.T) {
	t.Helper()
	names := []string{"PAKTON_LLM_URL", "PAKTON_LLM_MODEL", "PAKTON_LLM_API_KEY", "PAKTON_LLM_TIMEOUT"}
	for _, r := range []string{"ARCHIVIST", "RESEARCHER", "INTERROGATOR", "WRITER"} {
		for _, s := range []string{"MODEL", "URL", "API_KEY"} {
			names = append(names, "PAKTON_LLM_"+r+"_"+s)
		}
	}
	for _, n := range names {
		t.Setenv(n, "")
	}
}

func TestLoadPrecedence(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	file := `{"llm": {
	  "default": {"base_url": "http://file:11434/v1", "model": "file-model", "api_key": "file-key", "timeout": "45s", "temperature": 0.1},
	  "roles": {"writer": {"model": "file-writer", "timeout": 300}, "researcher": {"base_url": "http://file-research/v1"}}
	}}`
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}

	// File only.
	r, err := llm.Load(path, llm.Roles{})
	if err != nil {
		t.Fatal(err)
	}
	d := r.For(llm.RoleArchivist)
	if d.BaseURL != "http://file:11434/v1" || d.Model != "file-model" || d.APIKey != "file-key" || d.Timeout != 45*time.Second ||
		d.Temperature == nil || *d.Temperature != 0.1 {
		t.Errorf("archivist from file: %+v", d)
	}
	if w := r.For(llm.RoleWriter); w.Model != "file-writer" || w.Timeout != 300*time.Second || w.BaseURL != "http://file:11434/v1" {
		t.Errorf("writer inherits default: %+v", w)
	}
	if rs := r.For(llm.RoleResearcher); rs.BaseURL != "http://file-research/v1" || rs.Model != "file-model" {
		t.Errorf("researcher: %+v", rs)
	}
	if !r.Configured() {
		t.Error("not configured")
	}

	// Environment over file.
	t.Setenv("PAKTON_LLM_MODEL", "env-model")
	t.Setenv("PAKTON_LLM_TIMEOUT", "90")
	t.Setenv("PAKTON_LLM_WRITER_MODEL", "env-writer")
	t.Setenv("PAKTON_LLM_INTERROGATOR_URL", "http://env-interrogator/v1")
	r, err = llm.Load(path, llm.Roles{})
	if err != nil {
		t.Fatal(err)
	}
	if d := r.For(llm.RoleArchivist); d.Model != "env-model" || d.BaseURL != "http://file:11434/v1" || d.Timeout != 90*time.Second {
		t.Errorf("archivist env over file: %+v", d)
	}
	if w := r.For(llm.RoleWriter); w.Model != "env-writer" || w.Timeout != 300*time.Second {
		t.Errorf("writer env over file: %+v", w)
	}
	if i := r.For(llm.RoleInterrogator); i.BaseURL != "http://env-interrogator/v1" || i.Model != "env-model" {
		t.Errorf("interrogator: %+v", i)
	}

	// Flags over environment.
	r, err = llm.Load(path, llm.Roles{
		Default: llm.Config{Model: "flag-model"},
		ByRole:  map[string]llm.Config{llm.RoleWriter: {Model: "flag-writer"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := r.For(llm.RoleResearcher); d.Model != "flag-model" || d.BaseURL != "http://file-research/v1" {
		t.Errorf("researcher flags over env: %+v", d)
	}
	if w := r.For(llm.RoleWriter); w.Model != "flag-writer" {
		t.Errorf("writer flags over env: %+v", w)
	}
	if _, err := r.Chat(llm.RoleWriter); err != nil {
		t.Errorf("Chat(writer): %v", err)
	}
}

func TestLoadNothingConfigured(t *testing.T) {
	clearEnv(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no config.json there
	r, err := llm.Load("", llm.Roles{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Configured() {
		t.Errorf("configured with nothing set: %+v", r)
	}
	if _, err := r.Chat(llm.RoleWriter); err == nil {
		t.Error("Chat succeeded with no model")
	}
	// A role-only model is not enough: the other roles have none.
	t.Setenv("PAKTON_LLM_URL", "http://localhost:11434/v1")
	t.Setenv("PAKTON_LLM_WRITER_MODEL", "qwen3")
	if r, _ := llm.Load("", llm.Roles{}); r.Configured() {
		t.Error("configured with only the writer's model")
	}
}

func TestLoadErrors(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	if _, err := llm.Load(filepath.Join(dir, "missing.json"), llm.Roles{}); err == nil {
		t.Error("a named missing config file is not an error")
	}
	for name, body := range map[string]string{
		"syntax":  `{"llm": `,
		"role":    `{"llm": {"roles": {"judge": {"model": "x"}}}}`,
		"timeout": `{"llm": {"default": {"timeout": "soon"}}}`,
	} {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := llm.Load(p, llm.Roles{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	t.Setenv("PAKTON_LLM_TIMEOUT", "-5s")
	if _, err := llm.Load(filepath.Join(dir, "syntax.json"), llm.Roles{}); err == nil {
		t.Error("bad timeout accepted")
	}
}
