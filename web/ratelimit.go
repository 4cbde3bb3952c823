package web

import (
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// clientLimiter keeps one token bucket per client address. It forgets the
// addresses of idle clients, so its memory stays bounded.
type clientLimiter struct {
	mu      sync.Mutex
	every   rate.Limit
	burst   int
	clients map[string]*clientBucket
	what    string
}

type clientBucket struct {
	limiter *rate.Limiter
	seen    time.Time
}

// maxClients bounds the addresses remembered.
const maxClients = 10000

func newClientLimiter(perMinute float64, burst int, what string) *clientLimiter {
	return &clientLimiter{every: rate.Limit(perMinute / 60), burst: burst, clients: map[string]*clientBucket{}, what: what}
}

// allow takes a token for the client, or says how long to wait.
func (l *clientLimiter) allow(client string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.clients[client]
	if !ok {
		if len(l.clients) >= maxClients {
			for k, v := range l.clients {
				if now.Sub(v.seen) > time.Hour || len(l.clients) >= maxClients {
					delete(l.clients, k)
				}
			}
		}
		b = &clientBucket{limiter: rate.NewLimiter(l.every, l.burst)}
		l.clients[client] = b
	}
	b.seen = now
	r := b.limiter.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// middleware refuses a client over its rate with 429 and Retry-After.
func (l *clientLimiter) middleware(s *Server) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if l == nil {
				next.ServeHTTP(w, r)
				return
			}
			ok, wait := l.allow(clientIP(r), time.Now())
			if !ok {
				secs := int(math.Ceil(wait.Seconds()))
				w.Header().Set("Retry-After", fmt.Sprint(secs))
				s.writeError(w, r, errorf(http.StatusTooManyRequests, "too many %s from your address: try again in %d s", l.what, secs))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
