import Foundation
import Testing
import HealthRouterCore
import AppleHealthExportSource

/// Exports of iOS 8 and 9: compact dates, a record's `source`, numbers where later exports write
/// names, metadata as attributes, no DTD. Read into what later exports of the same data give.
@Suite struct LegacyExportTests {
    static let export = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="de_DE">
         <ExportDate value="20160312093000+0100"/>
         <Me HKCharacteristicTypeIdentifierDateOfBirth="19750405" HKCharacteristicTypeIdentifierBiologicalSex="1" HKCharacteristicTypeIdentifierBloodType="7" HKCharacteristicTypeIdentifierFitzpatrickSkinType="3"/>
         <Record type="HKQuantityTypeIdentifierBodyMass" source="Waage" unit="kg" creationDate="20160110073012+0100" startDate="20160110073000+0100" endDate="20160110073000+0100" HKWasUserEntered="1" value="64.5"/>
         <Record type="HKCategoryTypeIdentifierSleepAnalysis" source="Schlaf" unit="" creationDate="20160111064500+0100" startDate="20160110230000+0100" endDate="20160111064500+0100" value="0"/>
         <Record type="HKCategoryTypeIdentifierSleepAnalysis" source="Schlaf" unit="" creationDate="20160111064500+0100" startDate="20160110232000+0100" endDate="20160111063000+0100" value="1"/>
         <Record type="HKCategoryTypeIdentifierAppleStandHour" source="Uhr" unit="" startDate="20160110100000+0100" endDate="20160110110000+0100" value="0"/>
         <Record type="HKCategoryTypeIdentifierSleepAnalysis" source="Schlaf" unit="" startDate="20160111230000+0100" endDate="20160112063000+0100" value="9"/>
         <Record type="HKQuantityTypeIdentifierBodyMass" source="Waage" unit="kg" creationDate="gestern" startDate="letzte Woche" value="65"/>
         <Record type="HKQuantityTypeIdentifierBodyMass" source="Waage" unit="kg" creationDate="gestern" startDate="20160112073000+0100" value="viel"/>
         <Record type="HKQuantityTypeIdentifierBodyMass" source="Waage" unit="kg" creationDate="heute" startDate="20160113073000+0100" value="64"/>
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="31.5" durationUnit="min" totalDistance="5.2" totalDistanceUnit="km" totalEnergyBurned="350" totalEnergyBurnedUnit="kcal" source="Laufen" creationDate="20160109083200+0100" startDate="20160109080000+0100" endDate="20160109083130+0100"/>
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="lang" source="Laufen" creationDate="gestern" startDate="nie"/>
        </HealthData>
        """

    @Test func anIOS8ExportReadsLikeALaterOne() throws {
        let directory = try TemporaryDirectory()
        let output = try Fixtures.read(try directory.write("export.xml", Self.export))
        // The record whose dates cannot be read is skipped, and counted once (not for its creationDate too).
        #expect(output.skips.map(\.reason) == ["Record with an unreadable startDate", "Quantity Record with a non-numeric value",
                                                "Record creationDate that is not a date kept as text in metadata",
                                                "Workout with an unreadable startDate"])
        let run = try #require(output.samples(.workout).first)
        #expect(run.sourceName == "Laufen")
        #expect(run.end == Timestamp(epochMilliseconds: 1_452_324_690_000, utcOffsetSeconds: 3600))
        guard case .workout(let workout) = run.detail else { Issue.record("no workout"); return }
        #expect(workout.durationSeconds == 1890 && workout.totalDistanceMeters == 5200)
        let weight = try #require(output.samples(.quantity).first)
        #expect(weight.sourceName == "Waage")
        #expect(weight.start == Timestamp(epochMilliseconds: 1_452_407_400_000, utcOffsetSeconds: 3600))
        #expect(weight.createdAt == Timestamp(epochMilliseconds: 1_452_407_412_000, utcOffsetSeconds: 3600))
        #expect(weight.value == 64.5 && weight.unit == "kg")
        #expect(weight.metadata[key: "HKWasUserEntered"] == .number(1))
        #expect(weight.metadata[key: "source"] == nil)
        // Numbers for category values, as HealthKit names them; a number without a name as written.
        #expect(output.samples(.category).map { $0.categoryValue ?? "-" } == [
            "HKCategoryValueSleepAnalysisInBed", "HKCategoryValueSleepAnalysisAsleepUnspecified",
            "HKCategoryValueAppleStandHourStood", "9",
        ])
        // The profile as later exports write it, at the export's date.
        let profile = try #require(output.samples(.profile).first)
        #expect(profile.start == Timestamp(epochMilliseconds: 1_457_771_400_000, utcOffsetSeconds: 3600))
        guard case .record(let me) = profile.detail else { Issue.record("no profile record"); return }
        #expect(me[attribute: "HKCharacteristicTypeIdentifierDateOfBirth"] == "1975-04-05")
        #expect(me[attribute: "HKCharacteristicTypeIdentifierBiologicalSex"] == "HKBiologicalSexFemale")
        #expect(me[attribute: "HKCharacteristicTypeIdentifierBloodType"] == "HKBloodTypeOPositive")
        #expect(me[attribute: "HKCharacteristicTypeIdentifierFitzpatrickSkinType"] == "HKFitzpatrickSkinTypeIII")
    }

    /// A Record's attribute of its own is metadata: a plain number as a number, as a
    /// MetadataEntry's value is (so that `json_extract(metadata, '$.HKWasUserEntered') = 1` finds
    /// an iOS 8 export's manual entries as it finds later ones); a creationDate that is not a
    /// date stays the text it was, digits or not.
    @Test func aRecordsOwnAttributesAreNumbersAsMetadataEntriesAre() throws {
        let directory = try TemporaryDirectory()
        let output = try Fixtures.read(try directory.write("export.xml", """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="de_DE">
             <ExportDate value="20160312093000+0100"/>
             <Record type="HKQuantityTypeIdentifierBodyMass" source="Waage" unit="kg" creationDate="20160114" startDate="20160114073000+0100" endDate="20160114073000+0100" HKWasUserEntered="1" HKScale="2.5" note="links" value="63.5"/>
            </HealthData>
            """))
        let weight = try #require(output.samples(.quantity).first)
        #expect(weight.metadata[key: "HKWasUserEntered"] == .number(1))
        #expect(weight.metadata[key: "HKScale"] == .number(2.5))
        #expect(weight.metadata[key: "note"] == .string("links"))
        #expect(weight.metadata[key: "creationDate"] == .string("20160114"))
    }

    /// A kept-whole record's attribute that looks like a compact date (an identifier) is no
    /// instant of it: its content id stays what it was before compact dates were read.
    @Test func aCompactDateIsNoInstantOfAKeptWholeRecord() {
        #expect(GenericRecord.Attribute("identifier", "20230101120000-0001").instant == nil)
        #expect(GenericRecord.Attribute("receivedDate", "2023-01-01 12:00:00 -0800").instant
            == Timestamp(epochMilliseconds: 1_672_603_200_000, utcOffsetSeconds: -28_800))
    }

    /// A later export's spelling is kept as it is.
    @Test func laterSpellingsAreUnchanged() throws {
        let directory = try TemporaryDirectory()
        let body = """
             <Me HKCharacteristicTypeIdentifierDateOfBirth="1975-04-05" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="12" HKCharacteristicTypeIdentifierFitzpatrickSkinType=""/>
             <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Schlaf" startDate="2023-01-01 23:00:00 +0100" endDate="2023-01-02 06:00:00 +0100" value="HKCategoryValueSleepAnalysisAsleepCore"/>
             <Record type="HKCategoryTypeIdentifierHeadache" sourceName="Tagebuch" startDate="2023-01-01 10:00:00 +0100" endDate="2023-01-01 11:00:00 +0100" value="2"/>
            """
        let output = try Fixtures.read(try directory.write("export.xml", Fixtures.export(body)))
        #expect(output.samples(.category).map { $0.categoryValue ?? "-" } == ["HKCategoryValueSleepAnalysisAsleepCore", "2"])
        guard case .record(let me)? = output.samples(.profile).first?.detail else { Issue.record("no profile"); return }
        #expect(me.attributes.map(\.value) == ["1975-04-05", "HKBiologicalSexFemale", "12", ""])
    }
}
