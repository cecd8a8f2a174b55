"""NDW DATEX II feeds for the drills: announced openings (`riskOf` situations) written as the gzip file an `ndw`
provider reads, so each `bridget sync` of a rewritten file stores changes (announced for a new id, withdrawn for one no
longer listed)."""
import datetime
import gzip
import os

# Two real bridges of the NDW catalog: one the drills' alerts watch, one for changes no alert sees.
WATCHED = "NLWMH002340560000502"
OTHER = "NLAMS003630100100406"
_PLACES = {WATCHED: (52.7076664316445, 4.71626244833748), OTHER: (52.3779, 4.8976)}
_MOMENT = datetime.datetime.now(datetime.timezone.utc)


def at(minutes):
    """An instant `minutes` after the module was loaded, as DATEX II writes it."""
    return (_MOMENT + datetime.timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def situation(bridge, number, start):
    """An announced opening of `bridge` starting `start` minutes from now, with a stable id from `number`."""
    ident = f"PNH01_{bridge}_{number}"
    latitude, longitude = _PLACES[bridge]
    return (f'<situation id="{ident}" version="1"><overallSeverity>unknown</overallSeverity><situationVersionTime>{at(0)}'
            f"</situationVersionTime><headerInformation><confidentiality>noRestriction</confidentiality><informationStatus>"
            f'real</informationStatus></headerInformation><situationRecord xsi:type="GeneralNetworkManagement" '
            f'id="{ident}_01" version="1"><situationRecordCreationTime>{at(0)}</situationRecordCreationTime>'
            f"<situationRecordVersionTime>{at(0)}</situationRecordVersionTime><probabilityOfOccurrence>riskOf"
            f"</probabilityOfOccurrence><source><sourceName><values><value lang=\"nl\">PNH01</value></values></sourceName>"
            f"</source><validity><validityStatus>definedByValidityTimeSpec</validityStatus><validityTimeSpecification>"
            f"<overallStartTime>{at(start)}</overallStartTime><overallEndTime>{at(start + 6)}</overallEndTime>"
            f'</validityTimeSpecification></validity><groupOfLocations xsi:type="Point"><locationForDisplay><latitude>'
            f"{latitude}</latitude><longitude>{longitude}</longitude></locationForDisplay><pointByCoordinates>"
            f"<pointCoordinates><latitude>{latitude}</latitude><longitude>{longitude}</longitude></pointCoordinates>"
            f"</pointByCoordinates></groupOfLocations><operatorActionStatus>approved</operatorActionStatus>"
            f"<complianceOption>mandatory</complianceOption><generalNetworkManagementType>bridgeSwingInOperation"
            f"</generalNetworkManagementType></situationRecord></situation>")


def write_feed(path, items):
    """Writes `items` (situations) as a whole feed at `path`, atomically."""
    xml = ('<?xml version="1.0" encoding="UTF-8"?><SOAP:Envelope xmlns:SOAP="http://schemas.xmlsoap.org/soap/envelope/">'
           '<SOAP:Body><d2LogicalModel xmlns="http://datex2.eu/schema/2/2_0" modelBaseVersion="2" '
           'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><exchange><supplierIdentification><country>nl'
           '</country><nationalIdentifier>NLNDW</nationalIdentifier></supplierIdentification></exchange>'
           '<payloadPublication xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="SituationPublication" '
           f'lang="nl"><publicationTime>{at(0)}</publicationTime><publicationCreator><country>nl</country>'
           f'<nationalIdentifier>NLNDW</nationalIdentifier></publicationCreator>{"".join(items)}'
           "</payloadPublication></d2LogicalModel></SOAP:Body></SOAP:Envelope>")
    temporary = path + ".tmp"
    with open(temporary, "wb") as file:
        file.write(gzip.compress(xml.encode(), compresslevel=1))
    os.replace(temporary, path)
