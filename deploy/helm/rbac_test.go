package helm

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// The exporter's grant is exactly get, list and watch on pods, configmaps
// and endpointslices: no other verb or resource, no wildcard, no secrets.
func TestRBACGrantsExactlyWhatDiscoveryReads(t *testing.T) {
	want := []string{
		"/configmaps/get", "/configmaps/list", "/configmaps/watch",
		"/pods/get", "/pods/list", "/pods/watch",
		"discovery.k8s.io/endpointslices/get", "discovery.k8s.io/endpointslices/list", "discovery.k8s.io/endpointslices/watch",
	}
	for name, kind := range map[string]string{"default": "Role", "all-on": "ClusterRole"} {
		docs := strings.Split(render(t, valueSets[name])[chartDir+"/templates/rbac.yaml"], "\n---\n")
		var role rbacv1.ClusterRole // a Role has the same shape
		var binding rbacv1.RoleBinding
		if err := yaml.UnmarshalStrict([]byte(docs[0]), &role); err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal([]byte(docs[1]), &binding); err != nil {
			t.Fatal(err)
		}
		if role.Kind != kind || binding.Kind != kind+"Binding" || binding.RoleRef.Kind != kind {
			t.Errorf("%s: %s bound by %s to %s", name, role.Kind, binding.Kind, binding.RoleRef.Kind)
		}
		if kind == "Role" && role.Namespace != namespace {
			t.Errorf("Role in namespace %q", role.Namespace)
		}
		var got []string
		for _, r := range role.Rules {
			if len(r.ResourceNames) > 0 || len(r.NonResourceURLs) > 0 {
				t.Errorf("%s: rule with names or URLs: %+v", name, r)
			}
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					for _, v := range r.Verbs {
						got = append(got, g+"/"+res+"/"+v)
					}
				}
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s grants\n  %s\nwant\n  %s", name, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
}

// The Deployment selects the Kubernetes platform, scopes it as the values
// say, and runs non-root on a read-only root with no capabilities.
func TestDeploymentHardening(t *testing.T) {
	for name, ns := range map[string]string{"default": namespace, "all-on": ""} {
		var d appsv1.Deployment
		if err := yaml.UnmarshalStrict([]byte(render(t, valueSets[name])[chartDir+"/templates/deployment.yaml"]), &d); err != nil {
			t.Fatal(err)
		}
		pod := d.Spec.Template.Spec
		c := pod.Containers[0]
		env := map[string]string{}
		for _, e := range c.Env {
			env[e.Name] = e.Value
		}
		if env["EXPORTER_PLATFORM"] != "kubernetes" || env["EXPORTER_KUBE_NAMESPACE"] != ns {
			t.Errorf("%s: env %v", name, env)
		}
		sc := c.SecurityContext
		if pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot || sc.ReadOnlyRootFilesystem == nil ||
			!*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
			!slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
			t.Errorf("%s: security context %+v / %+v", name, pod.SecurityContext, sc)
		}
	}
	var d appsv1.Deployment
	_ = yaml.Unmarshal([]byte(render(t, valueSets["all-on"])[chartDir+"/templates/deployment.yaml"]), &d)
	c := d.Spec.Template.Spec.Containers[0]
	if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == "web-config" }) ||
		!hasEnv(c, "EXPORTER_WEB_CONFIG_FILE", "/etc/n8n-ceiling/web/web-config.yml") {
		t.Errorf("web config not wired: %+v %+v", c.VolumeMounts, c.Env)
	}
	checkHostCgroup(t, d)
}

// checkHostCgroup: cgroup.hostPath mounts the node's hierarchy read-only
// at EXPORTER_CGROUP_ROOT; by default nothing of the host is mounted.
func checkHostCgroup(t *testing.T, on appsv1.Deployment) {
	t.Helper()
	c := on.Spec.Template.Spec.Containers[0]
	i := slices.IndexFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == "host-cgroup" })
	j := slices.IndexFunc(on.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == "host-cgroup" })
	switch {
	case i < 0 || j < 0:
		t.Fatalf("cgroup.hostPath: mount %d, volume %d", i, j)
	case !c.VolumeMounts[i].ReadOnly || c.VolumeMounts[i].MountPath != "/host/cgroup" || !hasEnv(c, "EXPORTER_CGROUP_ROOT", "/host/cgroup"):
		t.Errorf("cgroup.hostPath: mount %+v, env %+v", c.VolumeMounts[i], c.Env)
	case on.Spec.Template.Spec.Volumes[j].HostPath == nil || on.Spec.Template.Spec.Volumes[j].HostPath.Path != "/sys/fs/cgroup":
		t.Errorf("cgroup.hostPath: volume %+v", on.Spec.Template.Spec.Volumes[j])
	}
	var d appsv1.Deployment
	_ = yaml.Unmarshal([]byte(render(t, valueSets["default"])[chartDir+"/templates/deployment.yaml"]), &d)
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.HostPath != nil {
			t.Errorf("the defaults mount %s from the host", v.HostPath.Path)
		}
	}
	if hasEnv(d.Spec.Template.Spec.Containers[0], "EXPORTER_CGROUP_ROOT", "/host/cgroup") {
		t.Error("the defaults point EXPORTER_CGROUP_ROOT at an unmounted path")
	}
}

func hasEnv(c corev1.Container, name, value string) bool {
	return slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == name && e.Value == value })
}
