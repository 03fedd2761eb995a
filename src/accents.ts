// WordPress's remove_accents, one rule for the plugin's dialect (sanitize_user, the logins it reads)
// and the service (the logins an unlock clears, as the dialect's sign-ins counted them).

/**
 * Letters remove_accents maps that Unicode does not decompose into a letter and its marks (strokes,
 * ligatures, ordinals), as WordPress maps them for a site in its default locale.
 */
const UNDECOMPOSED: Record<string, string> = {
  Æ: "AE",
  æ: "ae",
  Ð: "D",
  ð: "d",
  Ø: "O",
  ø: "o",
  Þ: "TH",
  þ: "th",
  ß: "s",
  Đ: "D",
  đ: "d",
  Ħ: "H",
  ħ: "h",
  ı: "i",
  Ĳ: "IJ",
  ĳ: "ij",
  ĸ: "k",
  Ŀ: "L",
  ŀ: "l",
  Ł: "L",
  ł: "l",
  ŉ: "n",
  Ŋ: "N",
  ŋ: "n",
  Œ: "OE",
  œ: "oe",
  Ŧ: "T",
  ŧ: "t",
  ſ: "s",
  ª: "a",
  º: "o",
  ɑ: "a",
  "€": "E",
  "£": "",
};

/** The letters WordPress's remove_accents spells otherwise, in its default locale (6.1's list). */
const ACCENTED = /[ªº£€ɑÀ-ÖØ-öø-ſƠơƯưǍ-ǜȘ-țẠ-ỹ]/gu;

/**
 * WordPress's `remove_accents`: after NFC (as WordPress normalizes with intl), each letter of its
 * list without its accents (`é`, `ǖ`, `ệ`, `ș`; the list's others spelled as above), every other
 * character kept (`ḱ` too, which Unicode would decompose: WordPress does not list it).
 */
export function removeAccents(text: string) {
  if (!/[^\p{ASCII}]/u.test(text)) return text;
  return text
    .normalize("NFC")
    .replace(
      ACCENTED,
      (ch) => UNDECOMPOSED[ch] ?? ch.normalize("NFD").replace(/[\u0300-\u036f]/g, ""),
    );
}

/**
 * A login without its accents, as WordPress's get_user_by('login') finds a username that
 * sanitize_user stored without them; an e-mail (with `@`) stays as it is.
 */
export const accentlessLogin = (login: string) =>
  login.includes("@") ? login : removeAccents(login);
