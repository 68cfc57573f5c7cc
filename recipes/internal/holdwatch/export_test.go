package holdwatch

// StopTimer stops the MaxHold timer, as a loaded machine that has not run
// it yet would: the hold must still end at its deadline.
func (w *Watch) StopTimer() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.timer.Stop()
}
