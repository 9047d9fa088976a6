package llm

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pakton/pakton/internal/config"
)

// Defaults applied by New when the corresponding Config field is zero.
const (
	DefaultTimeout        = 120 * time.Second
	DefaultMaxRetries     = 3
	DefaultRetryBaseDelay = 500 * time.Millisecond
	DefaultRetryMaxDelay  = 30 * time.Second
	// DefaultAzureAPIVersion is used for Azure OpenAI when APIVersion is empty.
	DefaultAzureAPIVersion = "2024-10-21"
)

// JSON modes: how a Request.Schema is sent to the server.
const (
	// JSONModeSchema sends response_format {type: json_schema} (the default).
	JSONModeSchema = "schema"
	// JSONModeObject sends response_format {type: json_object} and puts the
	// schema in a system message, for servers without json_schema support.
	JSONModeObject = "object"
	// JSONModeNone sends no response_format; the schema goes in a system
	// message only.
	JSONModeNone = "none"
)

// Roles that may each use a different model.
const (
	RoleArchivist    = "archivist"
	RoleResearcher   = "researcher"
	RoleInterrogator = "interrogator"
	RoleWriter       = "writer"
	// RoleReviewer is the model pass of a deal-room review (pakton review).
	RoleReviewer = "reviewer"
)

// AllRoles lists the pipeline roles in the order they first run.
var AllRoles = []string{RoleArchivist, RoleResearcher, RoleInterrogator, RoleWriter, RoleReviewer}

// Config configures one chat client. The zero value of every field but
// BaseURL and Model means "the default".
type Config struct {
	// BaseURL is the server's API root, e.g. http://localhost:11434/v1
	// (Ollama), or for Azure the resource endpoint
	// https://NAME.openai.azure.com.
	BaseURL string `json:"base_url,omitempty"`
	// APIKey is sent as "Authorization: Bearer" ("api-key" for Azure); empty
	// sends none. It never appears in errors.
	APIKey string `json:"api_key,omitempty"`
	// Model names the model (for Azure: the deployment name).
	Model string `json:"model,omitempty"`
	// Timeout bounds one attempt of one call, streaming included; zero means
	// DefaultTimeout.
	Timeout time.Duration `json:"-"`
	// MaxRetries is the number of retries after the first attempt on 429,
	// 5xx and connection errors; zero means DefaultMaxRetries, negative
	// means none.
	MaxRetries int `json:"max_retries,omitempty"`
	// Temperature is sent when a Request sets none; nil leaves it to the
	// server.
	Temperature *float64 `json:"temperature,omitempty"`
	// JSONMode says how structured output is requested: JSONModeSchema
	// (default, also ""), JSONModeObject or JSONModeNone.
	JSONMode string `json:"json_mode,omitempty"`
	// Azure selects Azure OpenAI: deployment URLs, the api-key header and
	// the api-version query parameter.
	Azure bool `json:"azure,omitempty"`
	// APIVersion is Azure's api-version; empty means DefaultAzureAPIVersion.
	APIVersion string `json:"api_version,omitempty"`
	// RetryBaseDelay is the backoff before the first retry (doubling, with
	// jitter) when the server sends no Retry-After; zero means
	// DefaultRetryBaseDelay.
	RetryBaseDelay time.Duration `json:"-"`
	// RetryMaxDelay caps the backoff and the server's Retry-After; zero
	// means DefaultRetryMaxDelay.
	RetryMaxDelay time.Duration `json:"-"`
}

// configured reports whether c names a server and a model.
func (c Config) configured() bool {
	return strings.TrimSpace(c.BaseURL) != "" && strings.TrimSpace(c.Model) != ""
}

// inherit returns c with its unset fields taken from d.
func (c Config) inherit(d Config) Config {
	c.BaseURL = cmp.Or(c.BaseURL, d.BaseURL)
	c.APIKey = cmp.Or(c.APIKey, d.APIKey)
	c.Model = cmp.Or(c.Model, d.Model)
	c.Timeout = cmp.Or(c.Timeout, d.Timeout)
	c.MaxRetries = cmp.Or(c.MaxRetries, d.MaxRetries)
	c.Temperature = cmp.Or(c.Temperature, d.Temperature)
	c.JSONMode = cmp.Or(c.JSONMode, d.JSONMode)
	c.Azure = cmp.Or(c.Azure, d.Azure)
	c.APIVersion = cmp.Or(c.APIVersion, d.APIVersion)
	c.RetryBaseDelay = cmp.Or(c.RetryBaseDelay, d.RetryBaseDelay)
	c.RetryMaxDelay = cmp.Or(c.RetryMaxDelay, d.RetryMaxDelay)
	return c
}

// Roles configures the model of each pipeline role. A role missing from
// ByRole, and every unset field of one present, inherits Default.
type Roles struct {
	Default Config
	ByRole  map[string]Config
}

// For returns the effective configuration of role (Default for an unknown
// or unconfigured role).
func (r Roles) For(role string) Config {
	return r.ByRole[role].inherit(r.Default)
}

// Configured reports whether every role resolves to a base URL and a model.
// When it is false, callers take the no-model path.
func (r Roles) Configured() bool {
	for _, role := range AllRoles {
		if !r.For(role).configured() {
			return false
		}
	}
	return true
}

// Chat returns a client for role's model.
func (r Roles) Chat(role string) (Chat, error) {
	c, err := New(r.For(role))
	if err != nil {
		return nil, fmt.Errorf("model for role %s: %w", role, err)
	}
	return c, nil
}

// Override returns r with every field set in o replacing r's. It is how a
// higher-precedence source (flags over environment over file) is applied.
func (r Roles) Override(o Roles) Roles {
	out := Roles{Default: o.Default.inherit(r.Default), ByRole: map[string]Config{}}
	for role, c := range r.ByRole {
		out.ByRole[role] = c
	}
	for role, c := range o.ByRole {
		out.ByRole[role] = c.inherit(r.ByRole[role])
	}
	return out
}

// fileConfig is the JSON shape of one model in the config file; durations
// are Go duration strings ("90s") or seconds.
type fileConfig struct {
	Config
	Timeout json.RawMessage `json:"timeout,omitempty"`
}

// File is the JSON layout of the config file:
//
//	{"llm": {"default": {...}, "roles": {"writer": {...}}}}
type fileLayout struct {
	LLM struct {
		Default fileConfig            `json:"default"`
		Roles   map[string]fileConfig `json:"roles"`
	} `json:"llm"`
}

// DefaultConfigPath returns $XDG_CONFIG_HOME/pakton/config.json (or the
// platform's user config directory), or "" when none is known.
func DefaultConfigPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		d, err := os.UserConfigDir()
		if err != nil {
			return ""
		}
		dir = d
	}
	return filepath.Join(dir, "pakton", "config.json")
}

// LoadFile reads the model configuration from the JSON config file at path.
func LoadFile(path string) (Roles, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Roles{}, fmt.Errorf("read config %s: %w", path, err)
	}
	var f fileLayout
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&f); err != nil {
		return Roles{}, fmt.Errorf("parse config %s: %w", path, err)
	}
	conv := func(fc fileConfig, where string) (Config, error) {
		c := fc.Config
		if len(fc.Timeout) > 0 && string(fc.Timeout) != "null" {
			var s string
			if json.Unmarshal(fc.Timeout, &s) != nil {
				s = string(fc.Timeout)
			}
			d, err := parseTimeout(s)
			if err != nil {
				return c, fmt.Errorf("config %s: %s timeout: %w", path, where, err)
			}
			c.Timeout = d
		}
		return c, nil
	}
	var r Roles
	if r.Default, err = conv(f.LLM.Default, "default"); err != nil {
		return Roles{}, err
	}
	for role, fc := range f.LLM.Roles {
		if !knownRole(role) {
			return Roles{}, fmt.Errorf("config %s: unknown role %q (want one of %s)", path, role, strings.Join(AllRoles, ", "))
		}
		c, err := conv(fc, role)
		if err != nil {
			return Roles{}, err
		}
		if r.ByRole == nil {
			r.ByRole = map[string]Config{}
		}
		r.ByRole[role] = c
	}
	return r, nil
}

// FromEnv reads the model configuration from the environment:
// PAKTON_LLM_URL, PAKTON_LLM_MODEL, PAKTON_LLM_API_KEY, PAKTON_LLM_TIMEOUT
// and, per role, PAKTON_LLM_<ROLE>_MODEL, _URL and _API_KEY.
func FromEnv() (Roles, error) {
	get := func(k string) string { return strings.TrimSpace(os.Getenv(k)) }
	var r Roles
	r.Default.BaseURL = get(config.EnvLLMURL)
	r.Default.Model = get(config.EnvLLMModel)
	r.Default.APIKey = get(config.EnvLLMAPIKey)
	if v := get(config.EnvLLMTimeout); v != "" {
		d, err := parseTimeout(v)
		if err != nil {
			return Roles{}, fmt.Errorf("%s: %w", config.EnvLLMTimeout, err)
		}
		r.Default.Timeout = d
	}
	for _, role := range AllRoles {
		c := Config{
			Model:   get(config.EnvLLMRole(role, "MODEL")),
			BaseURL: get(config.EnvLLMRole(role, "URL")),
			APIKey:  get(config.EnvLLMRole(role, "API_KEY")),
		}
		if c != (Config{}) {
			if r.ByRole == nil {
				r.ByRole = map[string]Config{}
			}
			r.ByRole[role] = c
		}
	}
	return r, nil
}

// Load returns the model configuration with flags over environment over
// config file. path names the config file; "" means DefaultConfigPath, which
// may be missing (a named file must exist). flags holds the values given on
// the command line; its zero fields are "not given".
func Load(path string, flags Roles) (Roles, error) {
	var file Roles
	explicit := path != ""
	if !explicit {
		path = DefaultConfigPath()
	}
	if path != "" {
		f, err := LoadFile(path)
		switch {
		case err == nil:
			file = f
		case !explicit && errors.Is(err, fs.ErrNotExist):
		default:
			return Roles{}, err
		}
	}
	env, err := FromEnv()
	if err != nil {
		return Roles{}, err
	}
	return file.Override(env).Override(flags), nil
}

// parseTimeout reads a Go duration ("90s", "2m") or a number of seconds.
func parseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs < 0 {
			return 0, fmt.Errorf("negative timeout %q", s)
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("timeout %q is neither a duration (90s) nor seconds", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("negative timeout %q", s)
	}
	return d, nil
}

func knownRole(role string) bool {
	for _, r := range AllRoles {
		if r == role {
			return true
		}
	}
	return false
}
