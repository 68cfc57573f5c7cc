package recipe

import (
	"fmt"
	"slices"
	"strings"
)

// Parts notes, in a package whose one Option type configures several
// parts (a latch, a selector and an observer; a queue and its consumer),
// which parts each option given configures, so that each constructor
// refuses what configures another. A part is named as a sentence names it:
// "a Latch", "a consumer". The zero Parts notes nothing.
type Parts struct {
	given []partsOf
}

// partsOf is an option given and the parts it configures.
type partsOf struct {
	option string
	parts  []string
}

// Configures notes that the option named option, given, configures parts.
func (p *Parts) Configures(option string, parts ...string) {
	p.given = append(p.given, partsOf{option: option, parts: parts})
}

// Refuse returns an error wrapping invalid for the first option given
// that does not configure part, and nil if there is none.
func (p *Parts) Refuse(part string, invalid error) error {
	for _, g := range p.given {
		if !slices.Contains(g.parts, part) {
			return fmt.Errorf("%w: %s configures %s, not %s", invalid, g.option, strings.Join(g.parts, " or "), part)
		}
	}
	return nil
}
