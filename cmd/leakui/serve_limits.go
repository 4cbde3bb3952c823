package main

import (
	"flag"

	"github.com/leakui/leakui/web"
)

// serveLimits are the serve flags that bound what one client may take: the
// slowest request body, its heap dumps waiting for analysis and its disk.
type serveLimits struct {
	MinBodyRate                int64
	MaxQueuedPerClient         int
	DiskQuota, ClientDiskQuota int64
}

// register registers the flags.
func (l *serveLimits) register(fs *flag.FlagSet) {
	fs.Int64Var(&l.MinBodyRate, "min-body-rate", web.DefaultMinBodyRate, "bytes a second a request body (an upload) must average over every -idle-body-timeout, or it is cut with 408 (negative: no minimum)")
	fs.IntVar(&l.MaxQueuedPerClient, "max-queued-per-client", web.DefaultMaxQueuedPerClient, "heap dumps one client address may have queued or being analyzed; beyond, 429 (the queue serves addresses round robin)")
	fs.Int64Var(&l.DiskQuota, "disk-quota", 0, "bytes the store may hold in all (files and heap dump indexes); an upload past it gets 507 (default: no quota)")
	fs.Int64Var(&l.ClientDiskQuota, "client-disk-quota", 0, "bytes the reports uploaded from one client address may hold; an upload past it gets 507 (default: no quota)")
}

// apply sets the limits in the server's configuration.
func (l *serveLimits) apply(cfg *web.Config) {
	cfg.MinBodyRate, cfg.MaxQueuedPerClient = l.MinBodyRate, l.MaxQueuedPerClient
	cfg.DiskQuota, cfg.ClientDiskQuota = l.DiskQuota, l.ClientDiskQuota
}
