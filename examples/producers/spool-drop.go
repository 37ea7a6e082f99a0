// Queue one HTTP write in a spool by the drop protocol of spool(5): usage SPOOL METHOD URL BODY.
// Prints the write's id, and exits 0 only once the write survives a crash or power cut.
// Copy it into your program; it needs nothing beyond Go's standard library.
package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

type operation struct {
	Method         string `json:"method"`
	URL            string `json:"url"`
	Body           string `json:"body"`
	IdempotencyKey string `json:"idempotency_key"`
}

func randomHex(bytes int) string {
	data := make([]byte, bytes)
	if _, err := rand.Read(data); err != nil {
		panic(err)
	}
	return hex.EncodeToString(data)
}

func drop(spool, method, url, body string) (string, error) {
	data, err := json.Marshal(operation{method, url, body, randomHex(16)})
	if err != nil {
		return "", err
	}
	data = append(data, '\n')
	host, _ := os.Hostname()
	host = regexp.MustCompile(`[^A-Za-z0-9.-]`).ReplaceAllString(host, "")
	if len(host) > 40 {
		host = host[:40]
	}
	if host == "" {
		host = "host"
	}
	// Unique: the time in nanoseconds, this process, a random part; sorts by time.
	name := fmt.Sprintf("%d.%d.%s.%s", time.Now().UnixNano(), os.Getpid(), randomHex(4), host)
	temporary := filepath.Join(spool, "tmp", name)
	file, err := os.OpenFile(temporary, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	_, err = file.Write(data)
	if err == nil {
		err = file.Sync() // the document on disk before its name appears in new/
	}
	if closeErr := file.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		os.Remove(temporary)
		return "", err
	}
	if err := os.Rename(temporary, filepath.Join(spool, "new", name)); err != nil { // no reader sees half a file
		return "", err
	}
	folder, err := os.Open(filepath.Join(spool, "new"))
	if err != nil {
		return "", err
	}
	defer folder.Close()
	return name, folder.Sync() // the name itself survives a power cut
}

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: spool-drop SPOOL METHOD URL BODY")
		os.Exit(64)
	}
	id, err := drop(os.Args[1], os.Args[2], os.Args[3], os.Args[4])
	if err != nil {
		fmt.Fprintf(os.Stderr, "spool-drop: %v\n", err)
		os.Exit(75)
	}
	fmt.Println(id)
}
