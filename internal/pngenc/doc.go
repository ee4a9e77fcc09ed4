// Package pngenc writes PNG files with exactly the bytes of the standard
// library's image/png.Encode, in less time for the images every figure
// is drawn on: opaque *image.RGBA.
//
// Contract: Encode(w, m) writes the same bytes to w as png.Encode(w, m),
// for every image m (tests compare them on images that exercise every
// filter type and on committed figures; experiments' redraw test holds
// every committed figure to its bytes). An opaque *image.RGBA takes
// this package's path: image/png's chunks, its zlib stream at the default
// level and its row filters, chosen by its rule (the least sum of absolute
// residuals, tried in its order, ties to the earlier), with residuals
// computed without a branch per byte and each trial stopped, as image/png
// stops it, once it cannot win (checked per block of bytes, not per byte).
// Any other image is handed to png.Encode.
//
// image/png spent as much on its filter choice as compress/flate spends
// compressing; this package makes that choice in about a fifth of the
// instructions (callgrind, BenchmarkEncode), and leaves compress/flate,
// whose output it must not change, as three quarters of the encoding.
package pngenc
