package kube

import (
	"context"
	"net/http"
)

// Access is one request an identity may or may not make: verb on
// resource (of API group Group, "" for the core group) in Namespace
// ("" = cluster-wide).
type Access struct {
	Verb, Group, Resource, Namespace string
}

// ServiceAccountUser is the user name a pod's service-account token
// authenticates as.
func ServiceAccountUser(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// ServiceAccountGroups are the groups such a token carries.
func ServiceAccountGroups(namespace string) []string {
	return []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}
}

// Allowed asks the apiserver, through a SubjectAccessReview made with c
// (which must be allowed to create one), whether user in groups may make
// the request a.
func Allowed(ctx context.Context, c *http.Client, apiserver, user string, groups []string, a Access) (bool, error) {
	review := map[string]any{
		"apiVersion": "authorization.k8s.io/v1",
		"kind":       "SubjectAccessReview",
		"spec": map[string]any{
			"user":   user,
			"groups": groups,
			"resourceAttributes": map[string]string{
				"verb": a.Verb, "group": a.Group, "resource": a.Resource, "namespace": a.Namespace,
			},
		},
	}
	var ans struct {
		Status struct {
			Allowed bool `json:"allowed"`
		} `json:"status"`
	}
	err := PostJSON(ctx, c, apiserver+"/apis/authorization.k8s.io/v1/subjectaccessreviews", review, &ans)
	return ans.Status.Allowed, err
}

// Impersonating returns a client that makes c's requests as user: the
// apiserver authenticates c's own credentials, checks that they may
// impersonate, and then authorizes each request as user.
func Impersonating(c *http.Client, user string) *http.Client {
	out := *c
	out.Transport = impersonate{user: user, next: transport(c)}
	return &out
}

type impersonate struct {
	user string
	next http.RoundTripper
}

func (i impersonate) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Impersonate-User", i.user)
	return i.next.RoundTrip(r)
}

func transport(c *http.Client) http.RoundTripper {
	if c.Transport != nil {
		return c.Transport
	}
	return http.DefaultTransport
}
