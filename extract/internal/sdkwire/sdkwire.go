// Package sdkwire holds what the openai and anthropic adapters both need to
// speak their vendors' HTTP APIs as the official Go SDKs did (both SDKs are
// Stainless-generated, so they announce the platform and read answers the
// same way): the platform headers' values and the SDKs' lenient reading of
// JSON answers and error bodies. The adapters' tests hold each one to its
// SDK byte for byte.
package sdkwire

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"strings"
)

// StainlessOS names the platform in X-Stainless-OS as the SDKs did.
func StainlessOS(goos string) string {
	switch goos {
	case "ios":
		return "iOS"
	case "android":
		return "Android"
	case "darwin":
		return "MacOS"
	case "windows":
		return "Windows"
	case "freebsd":
		return "FreeBSD"
	case "openbsd":
		return "OpenBSD"
	case "linux":
		return "Linux"
	}
	return "Other:" + goos
}

// StainlessArch names the processor in X-Stainless-Arch as the SDKs did.
func StainlessArch(goarch string) string {
	switch goarch {
	case "386":
		return "x32"
	case "amd64":
		return "x64"
	case "arm", "arm64":
		return goarch
	}
	return "other:" + goarch
}

// IsJSON reports whether a response's content type is JSON, as the SDKs
// decide it.
func IsJSON(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return strings.Contains(mt, "application/json") || strings.HasSuffix(mt, "+json")
}

// ObjectOf decodes a JSON object's members; nil for anything else.
func ObjectOf(raw []byte) map[string]json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// Member returns the raw value of key in a JSON object, nil if body is
// not an object or has no such key.
func Member(body []byte, key string) json.RawMessage { return ObjectOf(body)[key] }

// FieldString reads a string field as the SDKs' decoders did: a string is
// itself, null or absent is "", and any other value is its JSON text
// (llama.cpp's numeric error code 400 is "400").
func FieldString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return ""
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
		return s
	}
	return string(raw)
}
