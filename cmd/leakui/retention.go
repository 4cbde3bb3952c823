package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// retention is a duration flag that also takes days ("30d").
type retention time.Duration

func (r *retention) String() string {
	d := time.Duration(*r)
	if d > 0 && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}

func (r *retention) Set(s string) error {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return fmt.Errorf("want a number of days such as 30d, not %q", s)
		}
		*r = retention(time.Duration(n) * 24 * time.Hour)
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("want a duration such as 30d or 12h, not %q", s)
	}
	*r = retention(d)
	return nil
}
