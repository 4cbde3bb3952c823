package web

import (
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/leakui/leakui/web/serrors"
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
			ok, wait := l.allow(clientKey(r), time.Now())
			if !ok {
				secs := int(math.Ceil(wait.Seconds()))
				w.Header().Set("Retry-After", fmt.Sprint(secs))
				s.writeError(w, r, serrors.Errorf(http.StatusTooManyRequests, "too many %s from your address: try again in %d s", l.what, secs))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// Sign-in back-off: a client may fail loginFreeFailures times; each failure after
// that locks it out of /login for twice as long as the one before, from
// loginBaseDelay up to loginMaxDelay. A success forgets its failures.
const (
	loginFreeFailures = 5
	loginBaseDelay    = time.Second
	loginMaxDelay     = 15 * time.Minute
	// loginForget is how long an idle client's failures are remembered.
	loginForget = time.Hour
)

// loginLimiter counts each client address's failed sign-ins and locks it out of
// /login with an exponential back-off. Its memory is bounded like a
// clientLimiter's.
type loginLimiter struct {
	mu      sync.Mutex
	clients map[string]*loginRecord
}

type loginRecord struct {
	failures int
	until    time.Time // locked out until then
	seen     time.Time
}

func newLoginLimiter() *loginLimiter {
	return &loginLimiter{clients: map[string]*loginRecord{}}
}

// wait says how long the client must wait before it may try again (0: now).
func (l *loginLimiter) wait(client string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if rec, ok := l.clients[client]; ok && now.Before(rec.until) {
		return rec.until.Sub(now)
	}
	return 0
}

// failed records a wrong token and returns the lock-out it starts (0: none yet).
func (l *loginLimiter) failed(client string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	rec, ok := l.clients[client]
	if ok && now.Sub(rec.seen) > loginForget {
		rec.failures = 0
	}
	if !ok {
		if len(l.clients) >= maxClients {
			for k, v := range l.clients {
				if now.Sub(v.seen) > loginForget || len(l.clients) >= maxClients {
					delete(l.clients, k)
				}
			}
		}
		rec = &loginRecord{}
		l.clients[client] = rec
	}
	rec.seen = now
	rec.failures++
	if rec.failures < loginFreeFailures {
		return 0
	}
	d := loginMaxDelay
	if n := rec.failures - loginFreeFailures; n < 20 {
		d = min(loginBaseDelay<<n, loginMaxDelay)
	}
	rec.until = now.Add(d)
	return d
}

// succeeded forgets the client's failures.
func (l *loginLimiter) succeeded(client string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.clients, client)
}

// tooManySignIns is the 429 answer to a locked-out client, with Retry-After.
// Wrong tokens and downloads of files that are not there (guesses at a
// SHA-256) lock a client out alike.
func tooManySignIns(w http.ResponseWriter, wait time.Duration) error {
	secs := max(int(math.Ceil(wait.Seconds())), 1)
	w.Header().Set("Retry-After", fmt.Sprint(secs))
	return serrors.Errorf(http.StatusTooManyRequests, "too many wrong tokens or downloads of unknown files from your address: try again in %d s", secs)
}
