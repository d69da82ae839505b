package regionserver

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// storeIDFile names the file that holds a store's id, next to the store.
const storeIDFile = "STORE_ID"

// loadStoreID returns the id of the store under dataDir, creating it on the
// first start. Regions are assigned to stores, not addresses: a server
// restarted on another port still gets the regions whose data it holds.
func loadStoreID(dataDir string) (string, error) {
	path := filepath.Join(dataDir, storeIDFile)
	b, err := os.ReadFile(path)
	if err == nil {
		id := strings.TrimSpace(string(b))
		if len(id) != 32 {
			return "", fmt.Errorf("regionserver: %s holds %q, not a store id", path, id)
		}
		return id, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("regionserver: reading the store id: %w", err)
	}
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	id := hex.EncodeToString(raw[:])
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return "", fmt.Errorf("regionserver: %w", err)
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return "", fmt.Errorf("regionserver: writing the store id: %w", err)
	}
	_, werr := f.WriteString(id + "\n")
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return "", fmt.Errorf("regionserver: writing the store id: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("regionserver: writing the store id: %w", err)
	}
	return id, nil
}
