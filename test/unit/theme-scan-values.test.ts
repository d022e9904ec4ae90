import { firstFamily, hexColor } from '../../services/theme-scan';

// The website scan stores only what the theme accepts (spec §4.3, decision 0125).
test('colours: hex kept, rgb()/rgba() turned into hex, anything else not proposed', () => {
  expect(hexColor('#0B6E4F')).toBe('#0b6e4f');
  expect(hexColor('#abc')).toBe('#abc');
  expect(hexColor('#abcd')).toBeNull();
  expect(hexColor('rgb(123, 45, 38)')).toBe('#7b2d26');
  expect(hexColor('rgb(123 45 38 / 50%)')).toBe('#7b2d2680');
  expect(hexColor('rgba(0,0,0,1)')).toBe('#000000');
  expect(hexColor('rgb(300, 0, 0)')).toBeNull();
  expect(hexColor('hsl(10 50% 50%)')).toBeNull();
  expect(hexColor('red')).toBeNull();
  expect(hexColor('#fff;}body{x:y')).toBeNull();
});

test('fonts: the first family of a list, quotes removed; generic and unsafe names not proposed', () => {
  expect(firstFamily('"Kaffi Sans", system-ui, sans-serif')).toBe('Kaffi Sans');
  expect(firstFamily("'Inter'")).toBe('Inter');
  expect(firstFamily('sans-serif')).toBeNull();
  expect(firstFamily('"A\\";}</style>", serif')).toBeNull();
  expect(firstFamily('x'.repeat(65))).toBeNull();
});
