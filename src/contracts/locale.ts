/**
 * The codes a store's settings and addresses accept: ISO 3166-1 alpha-2 countries, ISO 4217
 * currencies and IANA time zones. Lists, not patterns, so that "ZZ" or "ABC" is a 400 with words
 * rather than a store whose address or prices nobody can read. Written out (not taken from the
 * runtime's Intl data, which differs between Node.js and browsers) so the server and the
 * dashboard accept exactly the same codes; the time zones are the exception, see TIME_ZONES.
 */

/** ISO 3166-1 alpha-2, with XK (Kosovo), which carriers and payment providers use. */
export const COUNTRY_CODES = (
  "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ " +
  "BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM " +
  "DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS " +
  "GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN " +
  "KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ " +
  "MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM " +
  "PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV " +
  "SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI " +
  "VN VU WF WS XK YE YT ZA ZM ZW"
).split(" ");

/** ISO 4217 codes of currencies a store can price in (funds and units of account left out). */
export const CURRENCY_CODES = (
  "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN " +
  "BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR " +
  "FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IQD IRR ISK JMD " +
  "JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK " +
  "MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN " +
  "PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL " +
  "THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD XCG XOF " +
  "XPF YER ZAR ZMW ZWG ZWL"
).split(" ");

/** ISO 4217 minor units where they are not 2: how many decimals an amount in the currency has. */
const THREE_DECIMALS = new Set(["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]);
const ZERO_DECIMALS = new Set([
  "BIF",
  "CLP",
  "DJF",
  "GNF",
  "ISK",
  "JPY",
  "KMF",
  "KRW",
  "PYG",
  "RWF",
  "UGX",
  "VND",
  "VUV",
  "XAF",
  "XOF",
  "XPF",
]);
export function currencyExponent(currency: string): number {
  if (THREE_DECIMALS.has(currency)) return 3;
  if (ZERO_DECIMALS.has(currency)) return 0;
  return 2;
}

const CURRENCY_SET = new Set(CURRENCY_CODES);
export function isCurrencyCode(code: string): boolean {
  return CURRENCY_SET.has(code);
}

/**
 * IANA time zones this runtime knows, and UTC. Taken from Intl (a list of 400 names changes with
 * every tzdata release, and the database must know a zone too: the overview counts days in SQL).
 * The server's list decides; the dashboard offers its browser's.
 */
export function timeZones(): string[] {
  return ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")];
}
let zoneSet: Set<string> | null = null;
export function isTimeZone(zone: string): boolean {
  zoneSet ??= new Set(timeZones());
  return zoneSet.has(zone);
}
