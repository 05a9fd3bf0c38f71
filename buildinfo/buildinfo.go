// Package buildinfo says which build of termarena is running: the module
// version, the VCS revision and the build date, for `termarena --version`,
// the startup log and `admin stats`.
//
// A build from a git checkout gets all three from the Go toolchain's own
// stamp (runtime/debug.ReadBuildInfo). A build without .git (the Docker
// build context excludes it) passes them to the linker instead:
//
//	go build -ldflags "-X github.com/termarena/termarena/buildinfo.version=v1.2.0
//	  -X github.com/termarena/termarena/buildinfo.revision=<commit>
//	  -X github.com/termarena/termarena/buildinfo.date=<RFC 3339 time>"
package buildinfo

import "runtime/debug"

// Set only by the linker (-X); a non-empty value wins over the toolchain's
// stamp.
var version, revision, date string

// Info identifies a build. Fields are "unknown" when nothing recorded them.
type Info struct {
	Version  string `json:"version"`
	Revision string `json:"revision"`
	// Date is when the binary was built; for a build stamped only by the
	// Go toolchain, which records no build time (builds are reproducible),
	// it is the time of the revision's commit.
	Date string `json:"date"`
}

// Read returns this binary's build information.
func Read() Info {
	bi, _ := debug.ReadBuildInfo()
	return fromBuild(bi, version, revision, date)
}

func fromBuild(bi *debug.BuildInfo, version, revision, date string) Info {
	var info Info
	if bi != nil {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			info.Version = v
		}
		modified := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Revision = s.Value
			case "vcs.time":
				info.Date = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified && info.Revision != "" {
			// Built from a checkout with uncommitted changes: the revision
			// alone would claim code that no commit holds.
			info.Revision += "-modified"
		}
	}
	for _, o := range []struct {
		dst *string
		v   string
	}{{&info.Version, version}, {&info.Revision, revision}, {&info.Date, date}} {
		if o.v != "" {
			*o.dst = o.v
		}
		if *o.dst == "" {
			*o.dst = "unknown"
		}
	}
	return info
}

// String is the one line `termarena --version` prints.
func (i Info) String() string {
	return "termarena " + i.Version + " (revision " + i.Revision + ", built " + i.Date + ")"
}
