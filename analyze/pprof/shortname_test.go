// Copyright 2016 Google Inc. All Rights Reserved.
// Copyright 2026 the leakui authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.
//
// The cases of TestShortName are ported from github.com/google/pprof (the
// module cache's github.com/google/pprof@v0.0.0-20261105003125-4bf881d7fb0b):
// internal/graph/graph_test.go, TestShortenFunctionName, lines 422-547.
//
// Changed by the leakui authors: run against ShortName, with cases of Rust
// and C++ names added.

package pprof

import "testing"

// TestShortName holds ShortName to pprof's own cases for
// graph.ShortenFunctionName, and to names of other languages whose short form
// pprof prints in its call graphs (TestGraphEqualsPprofDot in cmd/leakui
// compares them in the DOT text of a profile with such names).
func TestShortName(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"root", "root"},
		{"syscall.Syscall", "syscall.Syscall"},
		{"net/http.(*conn).serve", "http.(*conn).serve"},
		{"github.com/blahBlah/foo.Foo", "foo.Foo"},
		{"github.com/BlahBlah/foo.Foo", "foo.Foo"},
		{"github.com/BlahBlah/foo.Foo[...]", "foo.Foo[...]"},
		{"github.com/blah-blah/foo_bar.(*FooBar).Foo", "foo_bar.(*FooBar).Foo"},
		{"encoding/json.(*structEncoder).(encoding/json.encode)-fm", "json.(*structEncoder).(encoding/json.encode)-fm"},
		{"github.com/blah/blah/vendor/gopkg.in/redis.v3.(*baseClient).(github.com/blah/blah/vendor/gopkg.in/redis.v3.process)-fm", "redis.v3.(*baseClient).(github.com/blah/blah/vendor/gopkg.in/redis.v3.process)-fm"},
		{"github.com/foo/bar/v4.(*Foo).Bar", "bar.(*Foo).Bar"},
		{"github.com/foo/bar/v4/baz.Foo.Bar", "baz.Foo.Bar"},
		{"github.com/foo/bar/v123.(*Foo).Bar", "bar.(*Foo).Bar"},
		{"github.com/foobar/v0.(*Foo).Bar", "v0.(*Foo).Bar"},
		{"github.com/foobar/v1.(*Foo).Bar", "v1.(*Foo).Bar"},
		{"example.org/v2xyz.Foo", "v2xyz.Foo"},
		{"github.com/foo/bar/v4/v4.(*Foo).Bar", "v4.(*Foo).Bar"},
		{"github.com/foo/bar/v4/foo/bar/v4.(*Foo).Bar", "v4.(*Foo).Bar"},
		{"java.util.concurrent.ThreadPoolExecutor$Worker.run", "ThreadPoolExecutor$Worker.run"},
		{"java.bar.foo.FooBar.run(java.lang.Runnable)", "FooBar.run"},
		{"(anonymous namespace)::Bar::Foo", "Bar::Foo"},
		{"(anonymous namespace)::foo", "foo"},
		{"cpp::namespace::Class::method()::$_100::operator()", "Class::method"},
		{"foo_bar::Foo::bar", "Foo::bar"},
		{"cpp::namespace::Class::method<float, long, int>()", "Class::method<float, long, int>"},
		{"foo", "foo"},
		{"foo/xyz", "foo/xyz"},
		{"com.google.perftools.gwp.benchmark.FloatBench.lambda$run$0", "FloatBench.lambda$run$0"},
		{"java.bar.foo.FooBar.run$0", "FooBar.run$0"},
		// Rust: a trait method's path starts with "<", which no rule takes.
		{"<alloc::alloc::Global as core::alloc::Allocator>::allocate", "<alloc::alloc::Global as core::alloc::Allocator>::allocate"},
		{"core::ptr::drop_in_place<tokio::runtime::Runtime>", "core::ptr::drop_in_place<tokio::runtime::Runtime>"},
		{"std::vector<int>::push_back", "std::vector<int>::push_back"},
		{"mozilla::dom::Element::SetAttr<nsAtom>", "Element::SetAttr<nsAtom>"},
	} {
		if got := ShortName(tc.name); got != tc.want {
			t.Errorf("ShortName(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
