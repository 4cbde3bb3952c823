package web

// watches records the answers of the watch pages of a server that runs no
// watches (the golden server's): the list saying how to declare one, its
// JSON, and the 404s of a watch, a JSON twin and a snapshot that are not
// there, one with a hostile name. The pages of running watches are tested
// against real watched programs in web/watch.
func (g *goldenSession) watches() {
	g.get("watches/list", "/watch")
	g.get("watches/list-json", "/watch.json")
	g.get("watches/list-accept-json", "/watch", "Accept", "application/json")
	g.get("watches/not-found", "/watch/checkout")
	g.get("watches/not-found-json", "/watch/checkout.json")
	g.get("watches/not-found-hostile", "/watch/%3Cscript%3Ealert(1)%3C%2Fscript%3E")
	g.get("watches/snapshot-not-found", "/watch/checkout/snapshots/1733100000000/heap")
}
