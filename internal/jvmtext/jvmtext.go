// Package jvmtext writes class histograms and thread dumps the way HotSpot prints
// them, so that tests can build the JVM inputs they need (a Samza heap with n leaked
// consumers, a dump of 5,000 threads) and know every number in them.
package jvmtext

import (
	"fmt"
	"slices"
	"strings"
)

// Layout is one of the ways a JVM prints a class histogram.
type Layout int

const (
	// JDK9 is `jmap -histo` and `jcmd GC.class_histogram` of JDK 9 and later
	// (KlassInfoHisto::print_histo_on in heapInspection.cpp: "%4d: "
	// INT64_FORMAT_W(13) "  " UINT64_FORMAT_W(13) "  %s (%s)"), with a module column.
	JDK9 Layout = iota
	// JDK8 is the same without the module column.
	JDK8
	// SA is the Serviceability Agent's ObjectHistogram.printOn (`jmap -F -histo`).
	SA
)

// Class is one row of a histogram.
type Class struct {
	// Name is the class name; Module its module ("java.base@11.0.20"), empty for
	// classes of the unnamed module. Only the JDK9 layout prints it.
	Name, Module string
	// Instances and Bytes are the row's counts.
	Instances, Bytes int64
}

// SortByBytes orders classes by bytes, largest first, as the JVM prints them; rows
// of equal bytes keep their order.
func SortByBytes(classes []Class) {
	slices.SortStableFunc(classes, func(a, b Class) int {
		switch {
		case a.Bytes > b.Bytes:
			return -1
		case a.Bytes < b.Bytes:
			return 1
		}
		return 0
	})
}

// Totals returns the sums the Total line of a histogram of classes shows.
func Totals(classes []Class) (instances, bytes int64) {
	for _, c := range classes {
		instances += c.Instances
		bytes += c.Bytes
	}
	return instances, bytes
}

// Histogram prints classes in layout, in the order given (see SortByBytes), with
// its header and its Total line.
func Histogram(layout Layout, classes []Class) string {
	var b strings.Builder
	switch layout {
	case JDK9:
		b.WriteString(" num     #instances         #bytes  class name (module)\n-------------------------------------------------------\n")
	case JDK8:
		b.WriteString(" num     #instances         #bytes  class name\n----------------------------------------------\n")
	case SA:
		b.WriteString("Object Histogram:\n\nnum \t  #instances\t#bytes\tClass description\n--------------------------------------------------------------------------\n")
	}
	for i, c := range classes {
		switch {
		case layout == SA:
			fmt.Fprintf(&b, "%d:\t\t%d\t%d\t%s\n", i+1, c.Instances, c.Bytes, c.Name)
		case layout == JDK9 && c.Module != "":
			fmt.Fprintf(&b, "%4d: %13d  %13d  %s (%s)\n", i+1, c.Instances, c.Bytes, c.Name, c.Module)
		default:
			fmt.Fprintf(&b, "%4d: %13d  %13d  %s\n", i+1, c.Instances, c.Bytes, c.Name)
		}
	}
	instances, bytes := Totals(classes)
	if layout == SA {
		fmt.Fprintf(&b, "Total : \t%d\t%d\n", instances, bytes)
	} else {
		fmt.Fprintf(&b, "Total %13d  %13d\n", instances, bytes)
	}
	return b.String()
}

// BigHistogram returns a JDK 9+ histogram of n classes, as jmap -histo prints it for
// a large application, sorted by bytes; grow adds instances to every 100th class.
func BigHistogram(n int, grow int64) string {
	classes := make([]Class, n)
	for i := range classes {
		instances := int64(n-i) * 3
		if i%100 == 5 {
			instances += grow
		}
		name, module := fmt.Sprintf("com.example.generated.pkg%03d.Class%05d$Inner", i%997, i), ""
		switch i % 10 {
		case 0:
			name = fmt.Sprintf("[Lcom.example.generated.Type%05d;", i)
		case 1:
			name, module = fmt.Sprintf("jdk.internal.reflect.GeneratedMethodAccessor%d", i), "java.base@21.0.2"
		}
		classes[i] = Class{Name: name, Module: module, Instances: instances, Bytes: instances * 24}
	}
	SortByBytes(classes)
	return Histogram(JDK9, classes)
}
