// serveonce starts a web server, asks it for one page (or uploads files to
// it), stops it and waits for it, so that a side-by-side script can time a
// server's first page the way it times a command: start to finish, with the
// CPU time and peak memory of every process the server started.
//
//	serveonce -get /ui/flamegraph -out page.html -- go tool pprof -http={addr} -no_browser base.pb.gz
//
// {addr} in the command is replaced by a free loopback address; the page is
// asked for until the server accepts the connection. It prints the page's own
// time (from the connection accepted to the last byte), the CPU seconds the
// server's processes spent meanwhile and in all (from /proc), and the page's
// size. It makes itself the subreaper of the server's processes (Linux), so a
// server run through a wrapper (go tool) is waited for whole, and its usage
// reaches whoever waits for serveonce. Standard library only.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type files []string

func (f *files) String() string     { return strings.Join(*f, ",") }
func (f *files) Set(v string) error { *f = append(*f, v); return nil }

func main() {
	get := flag.String("get", "", "the path of the page to ask for")
	out := flag.String("out", "", "where the page goes (default: discarded after counting)")
	var uploads files
	flag.Var(&uploads, "upload", "a file to upload to /api/artifacts (repeatable; all in one request); prints the report's URL")
	timeout := flag.Duration("timeout", 10*time.Minute, "how long the server may take")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("serveonce: ")
	if flag.NArg() == 0 || (*get == "") == (len(uploads) == 0) {
		log.Fatal("usage: serveonce (-get PATH [-out FILE] | -upload FILE...) -- COMMAND ARGS... ({addr} in ARGS: the address)")
	}
	// The subreaper inherits the server's orphans, so they are waited for here.
	const prSetChildSubreaper = 36
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)

	addr := freeAddr()
	args := flag.Args()
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "{addr}", addr)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	pgid := cmd.Process.Pid
	err := ask(addr, *get, *out, uploads, pgid, *timeout)
	syscall.Kill(-pgid, syscall.SIGTERM)
	stop := time.AfterFunc(30*time.Second, func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	for { // every process of the server, the orphans of a wrapper too
		if _, werr := syscall.Wait4(-1, nil, 0, nil); errors.Is(werr, syscall.ECHILD) {
			break
		}
	}
	stop.Stop()
	if err != nil {
		log.Fatal(err)
	}
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// ask waits for the server to accept a connection, then asks for the page or
// makes the upload.
func ask(addr, get, out string, uploads []string, pgid int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not accept a connection in %v", addr, timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
	client := &http.Client{Timeout: timeout}
	if len(uploads) > 0 {
		return upload(client, "http://"+addr+"/api/artifacts", uploads)
	}
	cpu0 := groupCPU(pgid)
	start := time.Now()
	resp, err := client.Get("http://" + addr + get)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	w := io.Discard
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return err
	}
	took := time.Since(start)
	cpu1 := groupCPU(pgid)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", get, resp.Status)
	}
	fmt.Printf("page_wall_s %.3f page_cpu_s %.2f server_cpu_s %.2f page_bytes %d\n", took.Seconds(), cpu1-cpu0, cpu1, n)
	return nil
}

// upload posts the files in one multipart request and prints the report's URL.
func upload(client *http.Client, url string, paths []string) error {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		part, err := mw.CreateFormFile("file", filepath.Base(p))
		if err != nil {
			return err
		}
		part.Write(data)
	}
	mw.Close()
	resp, err := client.Post(url, mw.FormDataContentType(), &body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var r struct {
		ReportID string `json:"report_id"`
		Error    string `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.ReportID == "" {
		return fmt.Errorf("upload: %s %v %s", resp.Status, err, r.Error)
	}
	fmt.Println("/r/" + r.ReportID)
	return nil
}

// groupCPU is the CPU seconds (user and system) the processes of the process
// group have used so far, from /proc; 0 where there is no /proc.
func groupCPU(pgid int) float64 {
	dirs, _ := os.ReadDir("/proc")
	var ticks int64
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// Fields after the command name, which is in parentheses: state is the
		// 3rd field, pgrp the 5th, utime the 14th and stime the 15th.
		rest := stat[bytes.LastIndexByte(stat, ')')+2:]
		f := strings.Fields(string(rest))
		if len(f) < 13 {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g != pgid {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += u + s
	}
	return float64(ticks) / 100 // USER_HZ
}
