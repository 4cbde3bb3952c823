package page

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/leakui/leakui/web/serrors"
)

// QueryRows reads ?n= — a positive number of rows, "all" (0), or def when absent.
func QueryRows(v url.Values, def int, what string) (int, error) {
	switch s := v.Get("n"); s {
	case "":
		return def, nil
	case "all":
		return 0, nil
	default:
		k, err := strconv.Atoi(s)
		if err != nil || k < 1 {
			return 0, serrors.Errorf(http.StatusBadRequest, "n must be a positive number of %s or \"all\", not %q", what, s)
		}
		return k, nil
	}
}

// QueryFile reads a file number (?file=, ?base=, ?target=) of a report of n files,
// or def when absent.
func QueryFile(v url.Values, name string, def, n int) (int, error) {
	s := v.Get(name)
	if s == "" {
		return def, nil
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 0 || k >= n {
		return 0, serrors.Errorf(http.StatusBadRequest, "%s must be a file number from 0 to %d, not %q", name, n-1, s)
	}
	return k, nil
}
