package main

import (
	"fmt"
	"io"
	"reflect"
)

// printUsage writes each setting: flag, alias, type, help, env name and
// default.
func printUsage(w io.Writer) {
	fmt.Fprint(w, "Usage: exporter [flags]\n\nEvery flag has an env variable of the same name; a flag wins over its\nvariable. A bool flag alone means true.\n\n")
	eachEnvField(func(f reflect.StructField, name string) {
		line := "  -" + flagName(name)
		if alias := f.Tag.Get("alias"); alias != "" {
			line += ", --" + alias
		}
		def := "none"
		if d, ok := f.Tag.Lookup("envDefault"); ok {
			def = d
			if f.Type.Kind() == reflect.String {
				def = fmt.Sprintf("%q", d)
			}
		}
		fmt.Fprintf(w, "%s %s\n    \t%s\n    \tenv %s, default %s\n", line, kindOf(f.Type), f.Tag.Get("help"), name, def)
	})
	fmt.Fprint(w, "  -version\n    \tprint the version and exit\n")
}
