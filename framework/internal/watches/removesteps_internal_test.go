package watches

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRemovalView_NextSetsTheOneShotsAModeServedThenRemovesWhatNoWatchNeeds(t *testing.T) {
	for _, tc := range []struct {
		name string
		view removalView
		want Step
	}{
		{"nothing held", removalView{}, RemovalDone},
		{"a persistent mode alone", removalView{data: modePersistent, child: modePersistent}, removeBoth},
		{"a recursive mode alone", removalView{data: modeRecursive, child: modeRecursive}, removeBoth},
		{"a data one-shot on a persistent mode",
			removalView{data: modePersistent, child: modePersistent, dataShots: true}, convertData},
		{"a child one-shot on a persistent mode",
			removalView{data: modePersistent, child: modePersistent, childShots: true}, convertChildren},
		{"data converted, child one-shots left",
			removalView{child: modePersistent, dataShots: true, childShots: true}, convertChildren},
		{"data converted, no child one-shot",
			removalView{child: modePersistent, dataShots: true}, removeChildren},
		{"child converted, no data one-shot",
			removalView{data: modePersistent, childShots: true}, removeData},
		{"both converted", removalView{dataShots: true, childShots: true}, RemovalDone},
		{"a child one-shot beside a recursive mode is on the server already",
			removalView{data: modeRecursive, childShots: true}, removeData},
		{"the recursive watch of the path stays",
			removalView{needRecursive: true, data: modeRecursive, child: modeRecursive, dataShots: true}, RemovalDone},
		{"the persistent watch gone, the recursive one stays: its child part goes",
			removalView{needRecursive: true, data: modeRecursive, child: modePersistent}, removeChildren},
		{"the persistent watch gone, the recursive one stays, a child one-shot rode on it",
			removalView{needRecursive: true, data: modeRecursive, child: modePersistent, childShots: true}, convertChildren},
		{"the recursive watch gone, the persistent one stays",
			removalView{needPersistent: true, data: modePersistent, child: modePersistent, dataShots: true, childShots: true}, RemovalDone},
		{"the recursive watch that served the persistent one gone: the persistent mode first",
			removalView{needPersistent: true, data: modeRecursive, child: modeRecursive, dataShots: true}, setPersistent},
		{"the recursive watch that served the persistent one gone, a child one-shot set beside it",
			removalView{needPersistent: true, data: modeRecursive, childShots: true}, setPersistent},
		{"the persistent watch served by the recursive one gone",
			removalView{needRecursive: true, data: modeRecursive, child: modeRecursive}, RemovalDone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.view.next())
		})
	}
}
