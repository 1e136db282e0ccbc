package main

import (
	"flag"
	"reflect"
	"strings"
	"time"
)

// envFlag is one Config field's flag. Set records the value under the
// field's env name, so env parsing applies flags over the environment.
type envFlag struct {
	vars map[string]string
	env  string
	kind string // string, bool, int or duration
	def  string // the envDefault tag
}

func (f *envFlag) String() string { return f.def }

func (f *envFlag) Set(v string) error { f.vars[f.env] = v; return nil }

// IsBoolFlag lets a bool flag stand alone for true.
func (f *envFlag) IsBoolFlag() bool { return f.kind == "bool" }

func flagName(envName string) string { return strings.ToLower(strings.ReplaceAll(envName, "_", "-")) }

func kindOf(t reflect.Type) string {
	if t == reflect.TypeFor[time.Duration]() {
		return "duration"
	}
	return t.Kind().String()
}

// defineFlags adds every Config field's flag, and its alias, to fs.
func defineFlags(fs *flag.FlagSet, vars map[string]string) {
	eachEnvField(func(f reflect.StructField, name string) {
		v := &envFlag{vars: vars, env: name, kind: kindOf(f.Type), def: f.Tag.Get("envDefault")}
		fs.Var(v, flagName(name), f.Tag.Get("help"))
		if alias := f.Tag.Get("alias"); alias != "" {
			fs.Var(v, alias, "same as -"+flagName(name))
		}
	})
}
