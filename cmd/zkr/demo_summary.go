package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"
)

// printSummary prints one row per kind of hold of each recipe.
func printSummary(out io.Writer, ts []*tracker) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "recipe\tacquired\tlost\twait p50\twait p99\tmost holders/limit\tfencing tokens in order\tviolations\tnodes left\t")
	for _, t := range ts {
		for _, k := range t.r.kinds {
			s := t.stats[k]
			tokens := "n/a"
			if s.tokens > 0 {
				tokens = fmt.Sprintf("%d of %d", s.tokens-s.outOfOrder, s.tokens)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%v\t%v\t%d/%d\t%s\t%d\t%d\t\n", k.name, s.acquired, s.lost,
				percentile(s.waits, 50), percentile(s.waits, 99), s.peak, k.limit, tokens, s.violations, s.nodesLeft)
		}
	}
	_ = tw.Flush()
}

// percentile returns the p-th percentile of ds, rounded for reading.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	d := s[min(len(s)-1, (len(s)*p+99)/100-1)]
	return d.Round(time.Millisecond)
}
