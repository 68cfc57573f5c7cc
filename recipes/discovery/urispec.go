package discovery

import (
	"fmt"
	"strings"
)

// URISpec is the template of an instance's URI, Curator's UriSpec: a list
// of parts, each literal text or the name of a variable, written as
// {"parts":[{"value":...,"variable":...},...]}.
type URISpec struct {
	// Parts are the spec's parts, in order.
	Parts []URIPart
}

// URIPart is one part of a URISpec: literal text, or, when Variable, the
// name of a variable to replace.
type URIPart struct {
	// Value is the literal text, or the variable's name.
	Value string
	// Variable says whether Value names a variable.
	Variable bool
}

// ParseURISpec parses Curator's uri spec syntax: text with variables in
// braces, as "{scheme}://{address}:{port}/x". A variable's name is trimmed
// of white space; literal text is kept as it is; empty parts are left out
// (as Curator's tokenizer does: "{}" gives no part). A literal brace is
// the variable {[} or {]}. A brace inside a variable, a "}" without its
// "{", or an unclosed variable is ErrInvalidArgument.
func ParseURISpec(spec string) (*URISpec, error) {
	s := &URISpec{Parts: []URIPart{}}
	inside := false
	for rest := spec; rest != ""; {
		switch rest[0] {
		case '{':
			if inside {
				return nil, fmt.Errorf("%w: discovery: uri spec %q: { inside a variable", ErrInvalidArgument, spec)
			}
			inside = true
			rest = rest[1:]
			continue
		case '}':
			if !inside {
				return nil, fmt.Errorf("%w: discovery: uri spec %q: } without {", ErrInvalidArgument, spec)
			}
			inside = false
			rest = rest[1:]
			continue
		}
		n := strings.IndexAny(rest, "{}")
		if n < 0 {
			n = len(rest)
		}
		token := rest[:n]
		rest = rest[n:]
		if inside {
			token = trimJava(token)
		}
		s.Parts = append(s.Parts, URIPart{Value: token, Variable: inside})
	}
	if inside {
		return nil, fmt.Errorf("%w: discovery: uri spec %q: variable not closed", ErrInvalidArgument, spec)
	}
	return s, nil
}

// trimJava trims as Java's String.trim: every character up to U+0020.
func trimJava(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

// String returns the spec in Curator's syntax: literal parts as they are,
// variables in braces. Adjacent literal parts parse back as one; a literal
// part holding a brace, or a variable of no name (which "{ }" gives and
// String writes as "{}"), does not parse back.
func (s *URISpec) String() string {
	var b strings.Builder
	for _, p := range s.Parts {
		if p.Variable {
			b.WriteString("{" + p.Value + "}")
		} else {
			b.WriteString(p.Value)
		}
	}
	return b.String()
}

// Build fills the spec's variables from vars alone, as Curator's
// UriSpec.build(variables): {scheme} is "http" unless vars say otherwise,
// {[} and {]} are literal braces. See the function Build for the variables
// of an instance.
func (s *URISpec) Build(vars map[string]any) string {
	return s.build(map[string]string{"[": "{", "]": "}", "scheme": "http"}, vars)
}

func (s *URISpec) build(local map[string]string, vars map[string]any) string {
	var b strings.Builder
	for _, p := range s.Parts {
		if !p.Variable {
			b.WriteString(p.Value)
			continue
		}
		if v, ok := vars[p.Value]; ok {
			if v != nil {
				fmt.Fprint(&b, v)
			}
			continue
		}
		b.WriteString(local[p.Value])
	}
	return b.String()
}
