package kube

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Pods shaped like the worker pods of n8n-io/n8n-hosting's chart
// (charts/n8n/templates/deployment-worker.yaml) and of community-charts'
// (charts/n8n/templates/deployment-worker.yaml), as the API returns them.

func val(name, v string) corev1.EnvVar { return corev1.EnvVar{Name: name, Value: v} }

func fromSecret(name, secret, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key}}}
}

func fromConfigMap(name, cm, key string, optional bool) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: cm}, Key: key, Optional: &optional}}}
}

func envFromConfigMap(name string) corev1.EnvFromSource {
	return corev1.EnvFromSource{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}
}

func envFromSecret(name string) corev1.EnvFromSource {
	return corev1.EnvFromSource{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}
}

func configMap(ns, name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
}

// runningPod is a Running pod with every container running.
func runningPod(ns, name, ip string, cs ...corev1.Container) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		Labels: map[string]string{"app.kubernetes.io/component": "worker"}},
		Spec:   corev1.PodSpec{Containers: cs},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}}}
	for _, c := range cs {
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, corev1.ContainerStatus{Name: c.Name,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}})
	}
	return pod
}

// hostingWorker is n8n-io's worker container: `n8n worker --concurrency`,
// secrets by secretKeyRef, broker settings by configMapKeyRef, external
// runners for its task-runner sidecar.
func hostingWorker(concurrency string, extra ...corev1.EnvVar) corev1.Container {
	return defaultWorker(concurrency, append([]corev1.EnvVar{val("N8N_RUNNERS_MODE", "external")}, extra...)...)
}

// defaultWorker is that container left on n8n's runner default: no
// N8N_RUNNERS_MODE, so it launches its own runner.
func defaultWorker(concurrency string, extra ...corev1.EnvVar) corev1.Container {
	return corev1.Container{Name: "n8n-worker", Image: "docker.n8n.io/n8nio/n8n:2.23.2", Command: []string{"n8n"},
		Args: []string{"worker", "--concurrency=" + concurrency},
		Env: append([]corev1.EnvVar{
			fromConfigMap("EXECUTIONS_MODE", "n8n", "EXECUTIONS_MODE", false),
			fromSecret("DB_POSTGRESDB_PASSWORD", "n8n-db", "password"),
			val("QUEUE_HEALTH_CHECK_ACTIVE", "true"),
			fromSecret("N8N_ENCRYPTION_KEY", "n8n", "N8N_ENCRYPTION_KEY"),
			fromConfigMap("N8N_RUNNERS_BROKER_LISTEN_ADDRESS", "n8n", "N8N_RUNNERS_BROKER_LISTEN_ADDRESS", false),
		}, extra...),
		Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}}}
}

// hostingRunner is n8n-io's task-runner sidecar: the n8nio/runners
// launcher dialling the broker on localhost.
func hostingRunner(brokerURI string, extra ...corev1.EnvVar) corev1.Container {
	return corev1.Container{Name: "task-runner", Image: "n8nio/runners:2.23.2",
		Env: append([]corev1.EnvVar{
			val("N8N_RUNNERS_TASK_BROKER_URI", brokerURI),
			fromSecret("N8N_RUNNERS_AUTH_TOKEN", "n8n-task-runners", "N8N_RUNNERS_AUTH_TOKEN"),
			val("N8N_RUNNERS_AUTO_SHUTDOWN_TIMEOUT", "15"),
		}, extra...),
		Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")}}}
}

// communityWorker is community-charts' worker container: the production
// limit in env, the broker port from a ConfigMap through envFrom, and the
// encryption key Secret through envFrom.
func communityWorker(limit string) corev1.Container {
	return corev1.Container{Name: "n8n-worker", Image: "n8nio/n8n:2.23.2", Command: []string{"n8n"},
		Args: []string{"worker", "--concurrency=10"},
		Env: []corev1.EnvVar{val("N8N_PORT", "5678"), val("N8N_CONCURRENCY_PRODUCTION_LIMIT", limit),
			fromSecret("N8N_RUNNERS_AUTH_TOKEN", "n8n-task-runners-secret", "worker-auth-token")},
		EnvFrom: []corev1.EnvFromSource{envFromConfigMap("n8n-queue-configmap"), envFromConfigMap("n8n-task-broker-configmap"),
			envFromSecret("n8n-encryption-key-secret-v2")}}
}

// communityRunner is community-charts' external runner: the launcher, its
// limit and broker URI from the task-runners ConfigMap.
func communityRunner() corev1.Container {
	return corev1.Container{Name: "n8n-task-runners", Image: "n8nio/runners:2.23.2",
		Command: []string{"/usr/local/bin/task-runner-launcher"}, Args: []string{"javascript"},
		Env:     []corev1.EnvVar{fromSecret("N8N_RUNNERS_AUTH_TOKEN", "n8n-task-runners-secret", "worker-auth-token")},
		EnvFrom: []corev1.EnvFromSource{envFromConfigMap("n8n-task-runners-configmap")}}
}

func communityConfigMaps(ns string) []*corev1.ConfigMap {
	return []*corev1.ConfigMap{
		configMap(ns, "n8n-queue-configmap", map[string]string{"EXECUTIONS_MODE": "queue", "QUEUE_BULL_REDIS_HOST": "redis"}),
		configMap(ns, "n8n-task-broker-configmap", map[string]string{"N8N_RUNNERS_MODE": "external",
			"N8N_RUNNERS_BROKER_LISTEN_ADDRESS": "127.0.0.1", "N8N_RUNNERS_BROKER_PORT": "5679"}),
		configMap(ns, "n8n-task-runners-configmap", map[string]string{"N8N_RUNNERS_MAX_CONCURRENCY": "5",
			"N8N_RUNNERS_TASK_BROKER_URI": "http://127.0.0.1:5679", "N8N_RUNNERS_LAUNCHER_HEALTH_CHECK_PORT": "5680"}),
	}
}

// probeSidecar is the broker probe as the kube lab runs it: the exporter
// binary with discovery off, listening for the runner on listen and
// serving its /metrics on metrics.
func probeSidecar(listen, metrics string) corev1.Container {
	return corev1.Container{Name: "probe", Image: "localhost/n8n-ceiling/exporter:dev",
		Env: []corev1.EnvVar{val("EXPORTER_DISCOVERY", "false"), val("EXPORTER_LISTEN", metrics), val("PROBE_LISTEN", listen),
			val("PROBE_UPSTREAM", "http://localhost:5679"),
			{Name: "PROBE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}}
}

// slice is an EndpointSlice of Service svc listing pods by target
// reference on one port.
func slice(ns, svc string, port int32, pods ...*corev1.Pod) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: svc + "-abcde",
		Labels: map[string]string{discoveryv1.LabelServiceName: svc}}, AddressType: discoveryv1.AddressTypeIPv4,
		Ports: []discoveryv1.EndpointPort{{Port: &port}}}
	for _, p := range pods {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{p.Status.PodIP},
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: p.Namespace, Name: p.Name}})
	}
	return s
}

func lookup(cms ...*corev1.ConfigMap) ConfigMaps {
	return func(ns, name string) *corev1.ConfigMap {
		for _, cm := range cms {
			if cm.Namespace == ns && cm.Name == name {
				return cm
			}
		}
		return nil
	}
}
