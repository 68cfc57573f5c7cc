package mutex

// ownerState is one owner's hold, or (hold nil) its acquire under way with
// a channel closed when that ends, made by the first acquire that waits
// for it.
type ownerState struct {
	hold  *Hold
	under chan struct{}
}

// ownerTable keeps each owner's state. Most locks have one owner at a
// time, so the first is kept in the table itself and a map is made only
// for a second: an idle lock then keeps no map, which would cost it a few
// hundred bytes. Owners are never nil (see ownerOf). The zero value is
// empty; the Mutex's mu guards it.
type ownerTable struct {
	first      any // nil while the slot is free
	firstState ownerState
	more       map[any]ownerState
}

// get returns owner's state, and whether it has one.
func (t *ownerTable) get(owner any) (ownerState, bool) {
	if t.first != nil && t.first == owner {
		return t.firstState, true
	}
	s, ok := t.more[owner]
	return s, ok
}

// set records owner's state.
func (t *ownerTable) set(owner any, s ownerState) {
	switch {
	case t.first != nil && t.first == owner:
		t.firstState = s
	case t.more != nil && t.has(owner):
		t.more[owner] = s
	case t.first == nil:
		t.first, t.firstState = owner, s
	default:
		if t.more == nil {
			t.more = make(map[any]ownerState)
		}
		t.more[owner] = s
	}
}

func (t *ownerTable) has(owner any) bool {
	_, ok := t.more[owner]
	return ok
}

// remove forgets owner. A map left empty is dropped.
func (t *ownerTable) remove(owner any) {
	if t.first != nil && t.first == owner {
		t.first, t.firstState = nil, ownerState{}
		return
	}
	delete(t.more, owner)
	if len(t.more) == 0 {
		t.more = nil
	}
}

// held tells whether any owner holds.
func (t *ownerTable) held() bool {
	if t.first != nil && t.firstState.hold != nil {
		return true
	}
	for _, s := range t.more {
		if s.hold != nil {
			return true
		}
	}
	return false
}
