package discovery

import (
	"fmt"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Option configures a registry's Codec (New, NewCodec) or a Provider
// (Discovery.Provider). Each option's doc says which; the other refuses
// it with ErrInvalidArgument.
type Option func(*options) error

// options are what opts configure: a codec's and a provider's, and which
// part each option given configures.
type options struct {
	codec    codecOptions
	provider providerOptions
	parts    recipe.Parts
}

// The parts an Option configures.
const (
	codecPart    = "a codec"
	providerPart = "a provider"
)

// configure applies opts for part, refusing the options of the other.
func configure(opts []Option, part string) (options, error) {
	o, err := recipe.Options(opts, ErrInvalidArgument)
	if err != nil {
		return o, err
	}
	if err := o.parts.Refuse(part, ErrInvalidArgument); err != nil {
		return o, err
	}
	if o.provider.threshold == 0 { // not given: Curator's policy
		o.provider.downFor, o.provider.threshold = 30*time.Second, 2
	}
	return o, nil
}

type codecOptions struct {
	payloadClass string
	enabledField bool
}

// WithPayloadClass sets the Java class name written for a payload, as
// Curator writes its payload's class: "com.example.Payload" for a payload
// that encodes as a JSON object gives {"@class":"com.example.Payload",...};
// for one that encodes otherwise, the wrapper array
// ["com.example.Payload",value], except that a java.lang.String,
// java.lang.Integer, java.lang.Double or java.lang.Boolean of its own JSON
// type is written bare, as Jackson does. An instance read with a class
// keeps its own, and one read with a bare string, number or boolean keeps
// a natural type. An empty or blank name is ErrInvalidArgument. A codec's
// option. Default:
// the class Jackson reads the JSON value as (java.util.LinkedHashMap for
// an object, java.util.ArrayList for an array, java.lang.Long for an
// integer beyond Java's int), so that a Curator reader with an Object or
// Map payload class reads what Go writes.
func WithPayloadClass(name string) Option {
	return func(o *options) error {
		if strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t\r\n\"") {
			return fmt.Errorf("%w: discovery: payload class %q", ErrInvalidArgument, name)
		}
		o.codec.payloadClass = name
		o.parts.Configures("WithPayloadClass", codecPart)
		return nil
	}
}

// WithEnabledField makes the Codec write the enabled field, as Curator's
// JsonInstanceSerializer(payloadClass, false) does; readers older than
// Curator 2.9.1 (CURATOR-275) may fail on it. A codec's option. Default:
// Curator's
// compatible mode, JsonInstanceSerializer(payloadClass)'s, which
// leaves enabled out, so that every instance written is read as enabled.
func WithEnabledField() Option {
	return func(o *options) error {
		o.codec.enabledField = true
		o.parts.Configures("WithEnabledField", codecPart)
		return nil
	}
}

type providerOptions struct {
	strategy  Strategy
	downFor   time.Duration
	threshold int
}

// WithStrategy sets how the provider picks an instance. A provider's
// option. Default: RoundRobin.
func WithStrategy(s Strategy) Option {
	return func(o *options) error {
		if s < RoundRobin || s > Sticky {
			return fmt.Errorf("%w: strategy %d", ErrInvalidArgument, s)
		}
		o.provider.strategy = s
		o.parts.Configures("WithStrategy", providerPart)
		return nil
	}
}

// WithDownInstancePolicy skips, for downFor, an instance that NoteError
// was told of threshold times (Curator's DownInstancePolicy). A
// provider's option. Default: 30 seconds after 2 errors, as Curator's.
func WithDownInstancePolicy(downFor time.Duration, threshold int) Option {
	return func(o *options) error {
		if downFor <= 0 || threshold < 1 {
			return fmt.Errorf("%w: down instance policy %v after %d errors", ErrInvalidArgument, downFor, threshold)
		}
		o.provider.downFor, o.provider.threshold = downFor, threshold
		o.parts.Configures("WithDownInstancePolicy", providerPart)
		return nil
	}
}
