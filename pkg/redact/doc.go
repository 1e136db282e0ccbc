// Package redact hides secrets in what loadctl prints or writes. URL
// redacts one URL: the userinfo password and every query value become
// xxxxx, keys and the rest stay. Text finds URLs anywhere in free text,
// such as a Go error that quotes the URL it failed on (`Post
// "http://u:P@host/hook?token=T": dial tcp …`), and redacts each. Secrets
// hides the values of environment variables whose names look secret
// (TOKEN, PASSWORD, KEY, AUTH, …) wherever they appear, for the output
// of commands run with that environment. Writer redacts a stream of
// prints; JSON redacts every string of a saved document.
package redact
