import type { DroppLocation } from '../../adapters/carriers/dropp';
import type { PosturinnParcelPoint, PosturinnPostbox } from '../../adapters/carriers/posturinn';

/**
 * The simulated carriers' pickup points: fixed, so searches have known answers in tests. Places and
 * coordinates are real enough to look right on a map of Iceland; ids are the simulator's own.
 */
const WEEKDAYS = ['Mán–fös 10:00–18:00', 'Lau 11:00–16:00'];
const ALWAYS = ['Alla daga 00:00–24:00'];

export const DROPP_LOCATIONS: DroppLocation[] = [
  {
    id: 'd-kringlan',
    name: 'Dropp Kringlan',
    address: 'Kringlan 4-12',
    zipcode: '103',
    city: 'Reykjavík',
    latitude: 64.1298,
    longitude: -21.8946,
    openingHours: WEEKDAYS,
  },
  {
    id: 'd-hallveigarstigur',
    name: 'Dropp Hallveigarstígur',
    address: 'Hallveigarstígur 1',
    zipcode: '101',
    city: 'Reykjavík',
    latitude: 64.1455,
    longitude: -21.9325,
    openingHours: WEEKDAYS,
  },
  {
    id: 'd-grandi',
    name: 'Dropp Grandi',
    address: 'Fiskislóð 1',
    zipcode: '101',
    city: 'Reykjavík',
    latitude: 64.1547,
    longitude: -21.9506,
    openingHours: ALWAYS,
  },
  {
    id: 'd-smaralind',
    name: 'Dropp Smáralind',
    address: 'Hagasmári 1',
    zipcode: '201',
    city: 'Kópavogur',
    latitude: 64.101,
    longitude: -21.8843,
    openingHours: WEEKDAYS,
  },
  {
    id: 'd-fjordur',
    name: 'Dropp Fjörður',
    address: 'Fjarðargata 13-15',
    zipcode: '220',
    city: 'Hafnarfjörður',
    latitude: 64.0682,
    longitude: -21.9573,
    openingHours: WEEKDAYS,
  },
  {
    id: 'd-glerartorg',
    name: 'Dropp Glerártorg',
    address: 'Gleráreyrar 1',
    zipcode: '603',
    city: 'Akureyri',
    latitude: 65.6949,
    longitude: -18.1143,
    openingHours: WEEKDAYS,
  },
];

export const POSTURINN_POSTBOXES: PosturinnPostbox[] = [
  {
    postboxId: 'pb-101-austurstraeti',
    name: 'Póstbox Austurstræti',
    address: 'Austurstræti 16',
    postcode: '101',
    town: 'Reykjavík',
    latitude: 64.1476,
    longitude: -21.9386,
    openingHours: ALWAYS,
  },
  {
    postboxId: 'pb-105-hlemmur',
    name: 'Póstbox Hlemmur',
    address: 'Laugavegur 107',
    postcode: '105',
    town: 'Reykjavík',
    latitude: 64.1432,
    longitude: -21.9153,
    openingHours: ALWAYS,
  },
  {
    postboxId: 'pb-600-hof',
    name: 'Póstbox Hof',
    address: 'Strandgata 12',
    postcode: '600',
    town: 'Akureyri',
    latitude: 65.6832,
    longitude: -18.0878,
    openingHours: ALWAYS,
  },
];

export const POSTURINN_PARCEL_POINTS: PosturinnParcelPoint[] = [
  {
    parcelPointId: 'pp-108-skeifan',
    name: 'Pakkaport Skeifan',
    address: 'Skeifan 11',
    postcode: '108',
    town: 'Reykjavík',
    latitude: 64.1303,
    longitude: -21.874,
    openingHours: WEEKDAYS,
  },
  {
    parcelPointId: 'pp-200-hamraborg',
    name: 'Pakkaport Hamraborg',
    address: 'Hamraborg 10',
    postcode: '200',
    town: 'Kópavogur',
    latitude: 64.112,
    longitude: -21.91,
    openingHours: WEEKDAYS,
  },
];
