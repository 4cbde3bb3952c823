package web

import "github.com/leakui/leakui/web/incidents"

// The size of a card, which the root's card tests check.
const (
	cardWidth  = incidents.CardWidth
	cardHeight = incidents.CardHeight
)
