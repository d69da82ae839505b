// Command weir is the single binary of Weir: an HBase-compatible wide-column
// store with multi-tenant quality of service. All logic lives in
// internal/cli and the packages it calls; main only wires the process.
package main

import (
	"os"

	"github.com/weirdb/weir/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
