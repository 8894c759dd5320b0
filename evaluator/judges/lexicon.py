"""Names a lab scientist writes two ways, for the offline matcher's blanks: chemical
element symbols, the formulas and short names of common laboratory chemicals and
solvents, and other names of common reagents, drugs, instruments and methods
("paracetamol", "rotovap", "EDS"). General laboratory knowledge, not a list of any benchmark's answers; a name
not here is simply not recognised (the matcher then abstains or grades by words).

    spelled("NaOH")     # "sodium hydroxide"
    spelled("K-gluconate")  # "potassium gluconate"
"""

from __future__ import annotations

import re

ELEMENTS = {
    "H": "hydrogen", "He": "helium", "Li": "lithium", "Be": "beryllium", "B": "boron", "C": "carbon", "N": "nitrogen",
    "O": "oxygen", "F": "fluorine", "Ne": "neon", "Na": "sodium", "Mg": "magnesium", "Al": "aluminum",
    "Si": "silicon", "P": "phosphorus", "S": "sulfur", "Cl": "chlorine", "Ar": "argon", "K": "potassium",
    "Ca": "calcium", "Ti": "titanium", "Cr": "chromium", "Mn": "manganese", "Fe": "iron", "Co": "cobalt",
    "Ni": "nickel", "Cu": "copper", "Zn": "zinc", "Ga": "gallium", "Ge": "germanium", "As": "arsenic",
    "Se": "selenium", "Br": "bromine", "Kr": "krypton", "Rb": "rubidium", "Sr": "strontium", "Ag": "silver",
    "Cd": "cadmium", "Sn": "tin", "I": "iodine", "Xe": "xenon", "Cs": "cesium", "Ba": "barium", "Pt": "platinum",
    "Au": "gold", "Hg": "mercury", "Pb": "lead", "U": "uranium", "Pd": "palladium", "W": "tungsten",
}
# formula or short name -> the usual name (lower case)
CHEMICALS = {
    "H2": "hydrogen", "N2": "nitrogen", "O2": "oxygen", "Cl2": "chlorine", "O3": "ozone", "H2O": "water",
    "D2O": "heavy water", "H2O2": "hydrogen peroxide", "CO": "carbon monoxide", "CO2": "carbon dioxide",
    "NO": "nitric oxide", "NO2": "nitrogen dioxide", "N2O": "nitrous oxide", "SO2": "sulfur dioxide",
    "NH3": "ammonia", "CH4": "methane", "HCl": "hydrochloric acid", "HNO3": "nitric acid",
    "H2SO4": "sulfuric acid", "H3PO4": "phosphoric acid", "HF": "hydrofluoric acid", "AcOH": "acetic acid",
    "HOAc": "acetic acid", "CH3COOH": "acetic acid", "NaOH": "sodium hydroxide", "KOH": "potassium hydroxide",
    "LiOH": "lithium hydroxide", "NaCl": "sodium chloride", "KCl": "potassium chloride",
    "CaCl2": "calcium chloride", "MgCl2": "magnesium chloride", "MgSO4": "magnesium sulfate",
    "Na2SO4": "sodium sulfate", "NaHCO3": "sodium bicarbonate", "Na2CO3": "sodium carbonate",
    "K2CO3": "potassium carbonate", "NH4Cl": "ammonium chloride", "NaBH4": "sodium borohydride",
    "LiAlH4": "lithium aluminium hydride", "KMnO4": "potassium permanganate", "AgNO3": "silver nitrate",
    "CuSO4": "copper sulfate", "NaN3": "sodium azide", "EtOH": "ethanol", "MeOH": "methanol",
    "iPrOH": "isopropanol", "IPA": "isopropanol", "EtOAc": "ethyl acetate", "Et2O": "diethyl ether",
    "MeCN": "acetonitrile", "ACN": "acetonitrile", "CH3CN": "acetonitrile", "DCM": "dichloromethane",
    "CH2Cl2": "dichloromethane", "CHCl3": "chloroform", "CDCl3": "deuterated chloroform",
    "THF": "tetrahydrofuran", "DMF": "dimethylformamide", "DMSO": "dimethyl sulfoxide", "TFA": "trifluoroacetic acid",
    "EtBr": "ethidium bromide", "EDTA": "ethylenediaminetetraacetic acid", "PBS": "phosphate-buffered saline",
    "SDS": "sodium dodecyl sulfate", "BSA": "bovine serum albumin", "FBS": "fetal bovine serum",
    "PFA": "paraformaldehyde", "DAPI": "4',6-diamidino-2-phenylindole", "PEG": "polyethylene glycol",
    "PDMS": "polydimethylsiloxane", "PMMA": "poly(methyl methacrylate)", "PVDF": "polyvinylidene fluoride",
    "DTT": "dithiothreitol", "HEPES": "hepes", "TBS": "tris-buffered saline", "LB": "lysogeny broth",
    "dH2O": "distilled water", "ddH2O": "double-distilled water", "LN2": "liquid nitrogen", "LHe": "liquid helium",
    "C2H5OH": "ethanol", "CH3OH": "methanol", "C6H6": "benzene", "C6H12O6": "glucose", "HAuCl4": "chloroauric acid",
    "KBr": "potassium bromide", "NaF": "sodium fluoride", "SiO2": "silicon dioxide", "TiO2": "titanium dioxide",
    "ZnO": "zinc oxide", "Fe3O4": "iron oxide", "Al2O3": "aluminum oxide", "CaCO3": "calcium carbonate",
}
CHEMICALS.update({"K2Cr2O7": "potassium dichromate", "NaOCl": "sodium hypochlorite", "KOAc": "potassium acetate",
                  "NaOAc": "sodium acetate"})
# other names of one reagent, drug, instrument or method (lower case) -> the usual name
OTHER_NAMES = {
    "methylene chloride": "dichloromethane", "methyl alcohol": "methanol", "wood alcohol": "methanol",
    "ethyl alcohol": "ethanol", "isopropyl alcohol": "isopropanol", "2-propanol": "isopropanol",
    "propan-2-ol": "isopropanol", "baking soda": "sodium bicarbonate", "sodium hydrogen carbonate": "sodium bicarbonate",
    "hydrogen carbonate": "bicarbonate", "bleach": "sodium hypochlorite", "caustic soda": "sodium hydroxide",
    "muriatic acid": "hydrochloric acid", "table salt": "sodium chloride", "glycerin": "glycerol",
    "glycerine": "glycerol", "carbamide": "urea", "paracetamol": "acetaminophen", "adrenaline": "epinephrine",
    "noradrenaline": "norepinephrine", "lignocaine": "lidocaine", "salbutamol": "albuterol",
    "ascorbic acid": "vitamin c", "pen/strep": "penicillin-streptomycin", "pen-strep": "penicillin-streptomycin",
    "rotovap": "rotary evaporator", "rotavap": "rotary evaporator", "edx": "energy-dispersive x-ray spectroscopy",
    "eds": "energy-dispersive x-ray spectroscopy", "edxs": "energy-dispersive x-ray spectroscopy",
    "xps": "x-ray photoelectron spectroscopy", "esca": "x-ray photoelectron spectroscopy",
    "sem": "scanning electron microscopy", "tem": "transmission electron microscopy", "xrd": "x-ray diffraction",
    "spinal tap": "lumbar puncture", "ultrasound": "ultrasonography", "sonography": "ultrasonography",
    "x-ray": "radiograph", "radiography": "radiograph", "light gate": "photogate",
}
_BY_NAME = {name: name for name in (*CHEMICALS.values(), *OTHER_NAMES.values())}


# the anions of simple salts: formula -> the name's second word
ANIONS = {"F": "fluoride", "Cl": "chloride", "Br": "bromide", "I": "iodide", "O": "oxide", "S": "sulfide",
          "OH": "hydroxide", "OCl": "hypochlorite", "CN": "cyanide", "NO3": "nitrate", "NO2": "nitrite", "SO4": "sulfate", "SO3": "sulfite",
          "CO3": "carbonate", "HCO3": "bicarbonate", "PO4": "phosphate", "HPO4": "hydrogen phosphate",
          "H2PO4": "dihydrogen phosphate", "ClO": "hypochlorite", "ClO2": "chlorite", "ClO3": "chlorate",
          "ClO4": "perchlorate", "MnO4": "permanganate", "CrO4": "chromate", "OAc": "acetate", "BH4": "borohydride",
          "N3": "azide", "SCN": "thiocyanate"}
_SALT = re.compile(r"([A-Z][a-z]?)(\d?)\(?(" + "|".join(sorted(ANIONS, key=len, reverse=True)) + r")\)?(\d?)")


def salt(formula: str) -> str | None:
    """"AgCl" -> silver chloride, "NaClO2" -> sodium chlorite, "CaCl2" -> calcium chloride: a
    simple salt of one element and one anion; None otherwise."""
    m = _SALT.fullmatch(formula.strip())
    if not m or m[1] not in ELEMENTS:
        return None
    return f"{ELEMENTS[m[1]]} {ANIONS[m[3]]}"


_ELEMENT_AND_WORD = re.compile(r"([A-Z][a-z]?)(?:-|\s+)([a-z][\w-]*(?:\s+[a-z][\w-]*)?)")  # "K-gluconate"


def spelled(text: str) -> str | None:
    """The usual name of a chemical written as a formula, a short name or with an element
    symbol ("K-gluconate", "Al alloy"); None when nothing here names it."""
    t = text.strip()
    if t in CHEMICALS:
        return CHEMICALS[t]
    if t.lower() in OTHER_NAMES:
        return OTHER_NAMES[t.lower()]
    if t in ELEMENTS:
        return ELEMENTS[t]
    if salt(t):
        return salt(t)
    m = _ELEMENT_AND_WORD.fullmatch(t)
    if m and m[1] in ELEMENTS:
        return f"{ELEMENTS[m[1]]} {m[2]}"
    return None


def same_chemical(a: str, b: str) -> bool | None:
    """True when the two name one chemical, False when both are known and differ, None
    when either is not known here."""
    x, y = spelled(a) or _known(a), spelled(b) or _known(b)
    if x is None or y is None:
        return None
    return _plain(x) == _plain(y)


def _known(text: str) -> str | None:
    """A chemical's name as written, when it is one of the names here (or a simple salt's)."""
    low = text.strip().lower()
    parts = low.split()
    salt_name = len(parts) == 2 and parts[0] in _ELEMENT_NAMES and parts[1] in _ANION_NAMES
    return low if low in _BY_NAME or low in _ELEMENT_NAMES or salt_name else None


# sets, not the dicts' values: looked up for every blank graded
_ELEMENT_NAMES, _ANION_NAMES = frozenset(ELEMENTS.values()), frozenset(ANIONS.values())
_NOT_ALNUM = re.compile(r"[^a-z0-9]")


def _plain(name: str) -> str:
    return _NOT_ALNUM.sub("", name.lower().replace("aluminium", "aluminum").replace("sulph", "sulf"))


__all__ = ["ANIONS", "CHEMICALS", "ELEMENTS", "OTHER_NAMES", "salt", "same_chemical", "spelled"]
