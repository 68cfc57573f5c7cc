package framework

import (
	"math/rand/v2"
	"time"
)

// RetryPolicy decides whether a failed attempt may be retried and how long
// to wait first. Policies are stateless: the attempt number (0 for the first
// retry) and the time elapsed since the first attempt are passed in, so one
// policy serves every call of a shared client. Whether an error is worth
// retrying at all is decided apart from the policy, by IsRetryable. A wait
// that begins while the client is disconnected ends early when it
// connects again: it was a wait for the connection.
type RetryPolicy interface {
	// AllowRetry returns the wait before retry number attempt, and false
	// when no more retries are allowed.
	AllowRetry(attempt int, elapsed time.Duration) (wait time.Duration, ok bool)
}

// RetryPolicyFunc adapts a function to RetryPolicy.
type RetryPolicyFunc func(attempt int, elapsed time.Duration) (time.Duration, bool)

// AllowRetry calls f.
func (f RetryPolicyFunc) AllowRetry(attempt int, elapsed time.Duration) (time.Duration, bool) {
	return f(attempt, elapsed)
}

// maxExponentialRetries bounds the shift in ExponentialBackoff, as Curator
// caps maxRetries at 29 so that the multiplier never overflows.
const maxExponentialRetries = 29

// ExponentialBackoff retries up to maxRetries times. Retry n sleeps base
// times a random number between 1 and 2^(n+1), capped at maxWait, which is
// Curator's BoundedExponentialBackoffRetry with its jitter. maxRetries above
// 29 is treated as 29.
func ExponentialBackoff(base, maxWait time.Duration, maxRetries int) RetryPolicy {
	maxRetries = min(maxRetries, maxExponentialRetries)
	return RetryPolicyFunc(func(attempt int, _ time.Duration) (time.Duration, bool) {
		if attempt >= maxRetries {
			return 0, false
		}
		return backoff(base, maxWait, attempt), true
	})
}

// backoff is the jittered exponential wait of retry number attempt.
func backoff(base, maxWait time.Duration, attempt int) time.Duration {
	shift := min(attempt+1, maxExponentialRetries+1)
	factor := max(1, rand.Int64N(int64(1)<<shift))
	if base > 0 && factor > int64(maxWait/base) {
		return maxWait
	}
	return min(base*time.Duration(factor), maxWait)
}

// RetryNTimes retries up to n times, waiting the same time before each.
func RetryNTimes(n int, wait time.Duration) RetryPolicy {
	return RetryPolicyFunc(func(attempt int, _ time.Duration) (time.Duration, bool) {
		return wait, attempt < n
	})
}

// RetryUntilElapsed retries, waiting the same time before each retry, while
// less than maxElapsed has passed since the first attempt. Unlike Curator's,
// it refuses before sleeping once the wait would end past maxElapsed.
func RetryUntilElapsed(maxElapsed, wait time.Duration) RetryPolicy {
	return RetryPolicyFunc(func(_ int, elapsed time.Duration) (time.Duration, bool) {
		return wait, elapsed+wait < maxElapsed
	})
}

// RetryForever always retries, waiting the same time before each retry. The
// caller's context is then the only bound.
func RetryForever(wait time.Duration) RetryPolicy {
	return RetryPolicyFunc(func(int, time.Duration) (time.Duration, bool) {
		return wait, true
	})
}

// NoRetry never retries.
func NoRetry() RetryPolicy {
	return RetryPolicyFunc(func(int, time.Duration) (time.Duration, bool) {
		return 0, false
	})
}

// DefaultRetryPolicy is the policy of a client built without WithRetryPolicy:
// exponential backoff from 100 ms up to 5 s, at most 10 retries.
func DefaultRetryPolicy() RetryPolicy {
	return ExponentialBackoff(100*time.Millisecond, 5*time.Second, 10)
}
