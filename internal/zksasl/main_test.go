package zksasl_test

import (
	"testing"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }
