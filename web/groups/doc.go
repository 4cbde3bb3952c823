// Package groups owns goroutine groups as goroutine dumps, goroutine profiles
// and lab runs show them: the dumps loaded and grouped through the caches of
// parsed dumps and of their reports (Dumps), the group's title (Title), the
// groups view and its rows, the focus/ignore filter and the JSON shape.
package groups
