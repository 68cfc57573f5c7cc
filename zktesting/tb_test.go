package zktesting_test

import (
	"testing"

	"github.com/zkrecipes/zkrecipes/zktesting"
)

// Every testing.TB is a zktesting.TB: a test passes its t as it is.
var _ zktesting.TB = testing.TB(nil)
