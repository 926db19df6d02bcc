package schema

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// A receipt that prints no currency still says where it was issued
// ("43000 KAJANG, SELANGOR"), and a place that lies in exactly one country
// whose money is one currency names that currency as surely as a symbol
// does. placeCountries lists, per country, the names that put a text there
// and nowhere else: the country's own names and those of its subdivisions
// and cities that no other country shares and that do not commonly stand
// for something else (a brand, a street abroad, a given name, a word).
//
// A name with a street word on its side ("Penang Road", "Malacca Street",
// "Jalan Ipoh") names a street, and Singapore has streets named after most
// Malaysian states: it does not count (StreetName).
//
// Left out on purpose, with the reason:
//   - Malaysia: Perak (Tanjung Perak is Surabaya's port), Sabah (an Arabic
//     given name; Sabah Al-Salem is in Kuwait), Labuan (Labuan Bajo is in
//     Indonesia), Klang (a German word);
//   - the US: every state but the country's own names: Georgia is a
//     country, Washington and Virginia given names, New York, Texas,
//     Kentucky, California, Arizona, Alaska, Maryland and Idaho brands sold
//     abroad ("Texas Chicken" in Malaysia), Florida a region of Uruguay,
//     Nevada and Colorado Spanish words; US documents print "$" anyway;
//   - Canada: Ontario (a city in California), Alberta (a given name), New
//     Brunswick (a city in New Jersey), Yukon and Newfoundland (a car, a dog);
//   - Australia: Victoria (also in Canada, the Seychelles), the capitals
//     Sydney, Melbourne, Perth, Brisbane, Darwin and Hobart (towns of those
//     names elsewhere);
//   - India: Punjab (also in Pakistan), Hyderabad (also in Pakistan), Delhi
//     (towns in Canada and the US), Goa (too short to trust);
//   - Mexico: "Mexico" alone (New Mexico is a US state), Sonora and Durango
//     (towns in California and Colorado, Spain), Chihuahua and Tabasco (a
//     dog, a sauce), Hidalgo and Guerrero (surnames), Puebla (villages in
//     Spain), León (a Spanish city), Morelos and Colima (short and shared);
//   - no two-letter code alone ("MY", "SG", "CA" are words and other codes);
//     a US state's code counts only with its ZIP code ending the address
//     (USStateZIPPattern).
//
// Names are lower case, matched case-insensitively as whole words with runs
// of white space folded to one space.
var placeCountries = sync.OnceValue(func() []placeCountry {
	return []placeCountry{
		{"MY", "MYR", []string{"malaysia",
			"johor", "kedah", "kelantan", "melaka", "malacca", "negeri sembilan", "pahang", "penang", "perlis", "pulau pinang",
			"sarawak", "selangor", "terengganu", "kuala lumpur", "putrajaya", "cyberjaya", "petaling jaya", "shah alam",
			"subang jaya", "ipoh", "seremban", "kuantan", "kota kinabalu", "kuching"}},
		// Brunei writes "Sdn Bhd" like Malaysia but pays in Brunei dollars:
		// its names keep a quote that also names Malaysia from proving MYR.
		{"BN", "BND", []string{"brunei", "brunei darussalam", "bandar seri begawan"}},
		{"SG", "SGD", []string{"singapore"}},
		{"AU", "AUD", []string{"australia", "new south wales", "queensland", "tasmania", "south australia",
			"western australia", "northern territory", "australian capital territory", "canberra"}},
		{"IN", "INR", []string{"india", "maharashtra", "karnataka", "tamil nadu", "kerala", "gujarat", "rajasthan",
			"uttar pradesh", "madhya pradesh", "andhra pradesh", "telangana", "west bengal", "bihar", "odisha",
			"haryana", "jharkhand", "chhattisgarh", "uttarakhand", "himachal pradesh",
			"new delhi", "mumbai", "bengaluru", "bangalore", "chennai", "kolkata"}},
		{"US", "USD", []string{"united states", "united states of america", "usa", "u.s.a."}},
		{"CA", "CAD", []string{"canada", "quebec", "québec", "british columbia", "saskatchewan", "manitoba",
			"prince edward island", "northwest territories", "nunavut"}},
		{"MX", "MXN", []string{"méxico, d.f.", "ciudad de méxico", "cdmx", "estados unidos mexicanos", "jalisco",
			"nuevo león", "guadalajara", "monterrey", "querétaro", "yucatán", "quintana roo", "cancún", "tijuana",
			"baja california", "aguascalientes", "tamaulipas", "coahuila", "guanajuato", "michoacán", "zacatecas",
			"sinaloa", "oaxaca", "veracruz", "tlaxcala", "chiapas", "nayarit", "campeche", "san luis potosí",
			"estado de méxico"}},
	}
})

// USStates are the postal codes of the US states and DC.
const USStates = `(?:AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY)`

// USStateZIPPattern is a US state with its ZIP code ending the address or
// its column, after the town ("BENTONVILLE AR 72712", "Austin, TX 78701";
// not "DE 37079 Göttingen", a German postcode with its country prefix and
// town). A Walmart receipt prints no "$": its address is what says USD.
const USStateZIPPattern = `[\pL.],?[ \t]+` + USStates + `\.?[ \t]+\d{5}(?:-\d{4})?(?:[ \t]*$|[ \t]*[^\pL \t]|[ \t]{2})`

// reUSStateZIP is USStateZIPPattern on each line of a quote.
var reUSStateZIP = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)` + USStateZIPPattern) })

// placeCountry is one country of placeCountries: its ISO 3166 code, its
// currency and its names.
type placeCountry struct {
	country, currency string
	names             []string
}

// PlaceNames returns the names that place a text in country (an ISO 3166
// alpha-2 code) and in no other, lower case, or nil for a country the table
// does not list. Extractors search for exactly these, so that a place they
// cite as a currency's evidence is one validation accepts.
func PlaceNames(country string) []string {
	for _, c := range placeCountries() {
		if c.country == country {
			return c.names
		}
	}
	return nil
}

// PlaceCurrency returns the currency of the one country whose places s
// names, or "" when s names none or places of two countries (a quote that
// names two countries proves neither's currency).
func PlaceCurrency(s string) string {
	folded := foldText(s)
	found := ""
	for _, c := range placeCountries() {
		for _, n := range c.names {
			if !placeIn(folded, n) {
				continue
			}
			if found != "" {
				return ""
			}
			found = c.currency
			break
		}
	}
	return found
}

// placeBacks reports whether s backs the currency code by a place: it
// names places of code's one country, and no other currency by its ISO
// code in capitals or by a sign no letter makes (€, £, ¥, ₹): beside
// "SGD" or "€", "SELANGOR" says where the shop is, not what it charged in.
func placeBacks(s, code string) bool {
	if code == "" || otherCurrencyIn(s, code) {
		return false
	}
	if PlaceCurrency(s) == code {
		return true
	}
	// A state and ZIP code back USD where no listed place is named at all
	// (one of another country would leave the quote proving neither).
	return code == "USD" && !namesAnyPlace(s) && reUSStateZIP().MatchString(s)
}

// namesAnyPlace reports whether s names a place of placeCountries.
func namesAnyPlace(s string) bool {
	folded := foldText(s)
	for _, c := range placeCountries() {
		for _, n := range c.names {
			if placeIn(folded, n) {
				return true
			}
		}
	}
	return false
}

// otherCurrencyIn reports whether s names a currency other than code by an
// ISO code in capitals standing as a word, or by a currency sign without
// letters that code does not share ("$" is a ringgit's sign too).
func otherCurrencyIn(s, code string) bool {
	for i := 0; i+3 <= len(s); i++ {
		w := s[i : i+3]
		if !isUpperASCII(w[0]) || !isUpperASCII(w[1]) || !isUpperASCII(w[2]) ||
			i > 0 && isASCIILetterByte(s[i-1]) || i+3 < len(s) && isASCIILetterByte(s[i+3]) {
			continue
		}
		if _, ok := iso4217[w]; ok && w != code {
			return true
		}
	}
	own := currencyNames()[code]
	for other, names := range currencyNames() {
		if other == code {
			continue
		}
		for _, n := range names {
			if !hasASCIILetter(n) && !slices.Contains(own, n) && strings.Contains(s, n) {
				return true
			}
		}
	}
	return false
}

func isUpperASCII(c byte) bool { return c >= 'A' && c <= 'Z' }

func hasASCIILetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if isASCIILetterByte(s[i]) {
			return true
		}
	}
	return false
}

// placeIn reports whether the place name n occurs in s as a word (as
// wordIn) that is not the name of a street.
func placeIn(s, n string) bool {
	return wordWhere(s, n, func(before, after string) bool { return !StreetName(before, after) })
}

// streetAfter and streetBefore are the words that make a place name next to
// them the name of a street: "Penang Road" (after), "Jalan Ipoh" (before, in
// Malay and Indonesian addresses).
var (
	streetAfter = []string{"road", "rd", "street", "st", "lane", "ln", "avenue", "ave", "drive", "dr",
		"crescent", "cres", "close", "walk", "terrace", "boulevard", "blvd"}
	streetBefore = []string{"jalan", "jln", "jl", "lorong", "lrg", "lebuh", "lebuhraya", "persiaran", "lintang"}
)

// StreetName reports whether the place name between before and after (the
// text on either side of it) names a street ("Penang Road" is in
// Singapore, "Jalan Ipoh" in Kuala Lumpur), which does not say where the
// text is. Extractors skip such a name as validation does.
func StreetName(before, after string) bool {
	after = strings.TrimLeft(after, " \t\u00a0")
	k := 0
	for k < len(after) && isASCIILetterByte(after[k]) {
		k++
	}
	if k > 0 && (k == len(after) || after[k] < utf8.RuneSelf) && containsFold(streetAfter, after[:k]) {
		return true
	}
	before = strings.TrimRight(before, " \t\u00a0.")
	k = len(before)
	for k > 0 && isASCIILetterByte(before[k-1]) {
		k--
	}
	return k < len(before) && (k == 0 || before[k-1] < utf8.RuneSelf) && containsFold(streetBefore, before[k:])
}

func isASCIILetterByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
