// cgoburn: a dynamically linked Go program (cgo) that burns CPU in Go code (spin), then in C
// (burn), then sleeps while a checkpoint of the report is written (Go leaves through exit_group,
// where no report of the exit can be made).
package main

/*
#include <stdint.h>
static uint64_t burn(uint64_t n) { uint64_t x = 0; for (uint64_t i = 0; i < n; i++) x = x * 31 + i; return x; }
*/
import "C"
import (
	"fmt"
	"time"
)

func spin(d time.Duration) uint64 {
	var x uint64
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		for i := 0; i < 100000; i++ {
			x = x*33 + uint64(i)
		}
	}
	return x
}

func main() {
	s := spin(800 * time.Millisecond)
	end := time.Now().Add(800 * time.Millisecond)
	for time.Now().Before(end) {
		s += uint64(C.burn(2000000))
	}
	time.Sleep(1500 * time.Millisecond)
	fmt.Println("ok", s%7 < 7)
}
