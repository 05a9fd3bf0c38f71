package pong

// trigScaleShift is the fixed-point scale of sinTable: values are ×2^14.
const trigScaleShift = 14

// sinTable is sin(d°)·2^14 rounded, for d = 0..90. It is a literal rather
// than computed with package math at start-up: float results may differ by
// platform (FMA fusion on arm64, ppc64, s390x), and a one-ulp difference in
// a bounce would fork a replay.
var sinTable = [91]int32{
	0, 286, 572, 857, 1143, 1428, 1713, 1997, 2280, 2563,
	2845, 3126, 3406, 3686, 3964, 4240, 4516, 4790, 5063, 5334,
	5604, 5872, 6138, 6402, 6664, 6924, 7182, 7438, 7692, 7943,
	8192, 8438, 8682, 8923, 9162, 9397, 9630, 9860, 10087, 10311,
	10531, 10749, 10963, 11174, 11381, 11585, 11786, 11982, 12176, 12365,
	12551, 12733, 12911, 13085, 13255, 13421, 13583, 13741, 13894, 14044,
	14189, 14330, 14466, 14598, 14726, 14849, 14968, 15082, 15191, 15296,
	15396, 15491, 15582, 15668, 15749, 15826, 15897, 15964, 16026, 16083,
	16135, 16182, 16225, 16262, 16294, 16322, 16344, 16362, 16374, 16382,
	16384,
}

// polar splits speed into the components along a side's normal (always >= 0)
// and along the side (signed like deg), for an angle of deg degrees from the
// normal. Magnitudes are computed on |deg| and the sign applied afterwards,
// so mirrored hits give exactly mirrored velocities.
func polar(speed, deg int32) (normal, along int32) {
	a := deg
	if a < 0 {
		a = -a
	}
	a = min(a, 90)
	normal = speed * sinTable[90-a] >> trigScaleShift
	along = speed * sinTable[a] >> trigScaleShift
	if deg < 0 {
		along = -along
	}
	return normal, along
}
